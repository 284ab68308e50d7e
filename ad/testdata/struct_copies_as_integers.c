/* The program of TestStructCopiesAsIntegers (retype_test.go), compiled after bitsPrelude. */
typedef struct { double a, b; } Pair;
typedef struct { double v; long n; } Tagged;
__attribute__((noinline)) void copypair(Pair *dst, const Pair *src) { *dst = *src; }
__attribute__((noinline)) Pair swap(Pair p) { Pair q = {p.b, p.a}; return q; }
__attribute__((noinline)) void copytagged(Tagged *dst, const Tagged *src, int k) { for (int i = 0; i < k; i++) dst[i] = src[i]; }
__attribute__((noinline)) void copyn(char *dst, const char *src, int n) { memcpy(dst, src, n); }
double pairs(double x) {
	Pair p = {x * x, sin(x)}, q;
	copypair(&q, &p);
	Pair r = swap(q);
	return r.a * 2 + r.b * x;
}
double tagged(double x) {
	Tagged t[3], u[3];
	for (int i = 0; i < 3; i++) { t[i].v = x * (i + 1); t[i].n = i; }
	copytagged(u, t, 3);
	double s = 0;
	for (int i = 0; i < 3; i++) s += u[i].v * u[i].v * u[i].n;
	return s;
}
double buffer(double x) {
	double in[4] = {x, x * x, exp(x), 1}, out[4];
	char buf[32];
	copyn(buf, (char *)in, (int)sizeof in);
	copyn((char *)out, buf, (int)sizeof out);
	return out[0] * out[1] + out[2] - out[3];
}
int main(void) {
	volatile double xs[] = {-0.75, 0.5, 1.5};
	for (int i = 0; i < 3; i++) {
		double x = xs[i];
		CHECK("pair copy", __enzyme_autodiff((void *)pairs, x), 2 * cos(x) + 3 * x * x);
		CHECK("tagged copy", __enzyme_autodiff((void *)tagged, x), 44 * x);
		CHECK("char buffer", __enzyme_autodiff((void *)buffer, x), 3 * x * x + exp(x));
		CHECK("fwd pair copy", __enzyme_fwddiff((void *)pairs, x, 1.0), 2 * cos(x) + 3 * x * x);
		CHECK("fwd tagged copy", __enzyme_fwddiff((void *)tagged, x, 1.0), 44 * x);
	}
	return failures != 0;
}
