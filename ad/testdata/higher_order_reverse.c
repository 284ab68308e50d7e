/* The program of TestHigherOrderReverse (higherorder_test.go), compiled after checkPrelude. */
double __enzyme_autodiff(void *, double);
unsigned long long __enzyme_iter(unsigned long long, unsigned long long);
#define ORDERS(f) \
	double f##1(double x) { return __enzyme_autodiff((void *)f, x); } \
	double f##2(double x) { return __enzyme_autodiff((void *)f##1, x); } \
	double f##3(double x) { return __enzyme_autodiff((void *)f##2, x); }

double prod(double x) { return exp(2 * x) * sin(x); }
ORDERS(prod)

/* sum_{i=1..7} x^i / i, the terms computed in a loop and cached. */
double poly(double x) {
	double s = 0, p = 1;
	for (int i = 1; i <= 7; i++) { p *= x; s += p / i; }
	return s;
}
ORDERS(poly)

/* x^k for k = 0..5 in a heap array, then a weighted sum of their squares. */
double heap(double x) {
	double *v = malloc(6 * sizeof *v), s = 0;
	v[0] = 1;
	for (int i = 1; i < 6; i++) v[i] = v[i - 1] * x;
	for (int i = 0; i < 6; i++) s += v[i] * v[i] * (i + 1);
	free(v);
	return s; /* sum (k+1) x^(2k) */
}
ORDERS(heap)

__attribute__((noinline)) unsigned long long fact(unsigned long long n) { return n == 0 ? 1 : n * fact(n - 1); }
double series(double x) {
	double r = 0;
	unsigned long long n = __enzyme_iter(12, 1);
	for (unsigned long long i = 1; i <= n; i += 2)
		r += pow(x, (double)i) / fact(i) * (i % 4 == 1 ? 1 : -1);
	return r;
}
ORDERS(series)
double series4(double x) { return __enzyme_autodiff((void *)series3, x); }
static double sin_terms(double x, int upto) { /* sin's series through x^upto */
	double r = 0;
	for (int i = 1; i <= upto; i += 2) r += pow(x, i) / fact(i) * (i % 4 == 1 ? 1 : -1);
	return r;
}

int main(void) {
	double x = 0.8;
	double e = exp(2 * x), s = sin(x), c = cos(x);
	CHECK("(e^2x sin x)''", prod2(x), e * (3 * s + 4 * c));
	CHECK("(e^2x sin x)'''", prod3(x), e * (2 * s + 11 * c));
	double p2 = 0, p3 = 0;
	for (int i = 2; i <= 7; i++) p2 += (i - 1) * pow(x, i - 2);
	for (int i = 3; i <= 7; i++) p3 += (i - 1.0) * (i - 2) * pow(x, i - 3);
	CHECK("poly''", poly2(x), p2);
	CHECK("poly'''", poly3(x), p3);
	double h2 = 0, h3 = 0;
	for (int k = 1; k < 6; k++) {
		h2 += (k + 1) * 2.0 * k * (2 * k - 1) * pow(x, 2 * k - 2);
		if (k >= 2) h3 += (k + 1) * 2.0 * k * (2 * k - 1) * (2 * k - 2) * pow(x, 2 * k - 3);
	}
	CHECK("heap''", heap2(x), h2);
	CHECK("heap'''", heap3(x), h3);
	/* Order d sees n = 12 + d: each derivative is exactly a truncated
	   sine or cosine series through x^12 (x^11 for sines). */
	double cos_terms = 0;
	for (int i = 0; i <= 12; i += 2) cos_terms += pow(x, i) / fact(i) * (i % 4 == 0 ? 1 : -1);
	CHECK("series' (13 terms)", series1(x), cos_terms);
	CHECK("series'' (14 terms)", series2(x), -sin_terms(x, 11));
	CHECK("series''' (15 terms)", series3(x), -cos_terms);
	CHECK("series'''' (16 terms)", series4(x), sin_terms(x, 11));
	return failures != 0;
}
