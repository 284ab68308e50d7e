/* The program of TestFloatBitsThroughIntegers (retype_test.go), compiled after bitsPrelude. */
__attribute__((noinline)) unsigned long long tobits(double x) { unsigned long long u; memcpy(&u, &x, 8); return u; }
__attribute__((noinline)) double frombits(unsigned long long u) { double x; memcpy(&x, &u, 8); return x; }
double viamemcpy(double x) { return frombits(tobits(x * x)) * 3; }
double vialong(double x) {
	long buf[2];
	long *p = buf;
	*p = (long)tobits(sin(x));
	buf[1] = 7;
	double y; memcpy(&y, buf, 8);
	return y * x + buf[1];
}
double absbits(double x) { unsigned long long u = tobits(x); u &= 0x7fffffffffffffffULL; return frombits(u) * x; }
double negbits(double x) { unsigned long long u = tobits(x); u ^= 0x8000000000000000ULL; return frombits(u) * frombits(u); }
__attribute__((noinline)) unsigned long long *substore(unsigned long long flt, unsigned long long integral) {
	unsigned long long *data = malloc(2 * sizeof *data);
	double asflt; memcpy(&asflt, &flt, sizeof asflt);
	*(double *)data = asflt;
	data[1] = integral;
	return data;
}
double stored(double x) {
	unsigned long long res; memcpy(&res, &x, sizeof res);
	unsigned long long *data = substore(res, 3);
	double r = ((double *)data)[0] * x;
	free(data);
	return r;
}
/* The bits travel through out-parameters of helpers each called once: at
   -O3 argument promotion passes the second helper the i64 itself, which
   only the first helper's context tells is a double. */
static __attribute__((noinline)) void bitsout(unsigned long long *u, const double *d) { memcpy(u, d, sizeof *u); }
static __attribute__((noinline)) void bitsin(double *d, const unsigned long long *u) { memcpy(d, u, sizeof *d); }
double outparams(double x) {
	double v = exp(x), w;
	unsigned long long u;
	bitsout(&u, &v);
	bitsin(&w, &u);
	return sinh(x) * w;
}
/* At -O2 the vectorizer computes 1/d and sinh(z)/(1+z*z) as one <2 x
   double> division, its first lane built from the integer parameter:
   insertelement into <2 x i64>, then a bitcast to <2 x double>. */
static __attribute__((noinline)) double lanebits(unsigned long long b, double z) {
	double d;
	memcpy(&d, &b, sizeof d);
	return pow(d, -1.0) * (sinh(z) / (1.0 + z * z));
}
double lanes(double x) {
	double e = exp(x);
	unsigned long long u;
	memcpy(&u, &e, sizeof u);
	return lanebits(u, x);
}
static double dlanes(double x) {
	double q = 1 + x * x;
	return exp(-x) * ((cosh(x) - sinh(x)) / q - sinh(x) * 2 * x / (q * q));
}
int main(void) {
	volatile double xs[] = {-1.25, 0.5, 2.0};
	for (int i = 0; i < 3; i++) {
		double x = xs[i];
		CHECK("memcpy bits", __enzyme_autodiff((void *)viamemcpy, x), 6 * x);
		CHECK("long store", __enzyme_autodiff((void *)vialong, x), cos(x) * x + sin(x));
		CHECK("fabs by mask", __enzyme_autodiff((void *)absbits, x), 2 * fabs(x));
		CHECK("fneg by mask", __enzyme_autodiff((void *)negbits, x), 2 * x);
		CHECK("integer parameter", __enzyme_autodiff((void *)stored, x), 2 * x);
		CHECK("fwd memcpy bits", __enzyme_fwddiff((void *)viamemcpy, x, 1.0), 6 * x);
		CHECK("fwd long store", __enzyme_fwddiff((void *)vialong, x, 1.0), cos(x) * x + sin(x));
		CHECK("fwd integer parameter", __enzyme_fwddiff((void *)stored, x, 1.0), 2 * x);
		CHECK("out-parameters", __enzyme_autodiff((void *)outparams, x), (cosh(x) + sinh(x)) * exp(x));
		CHECK("fwd out-parameters", __enzyme_fwddiff((void *)outparams, x, 1.0), (cosh(x) + sinh(x)) * exp(x));
		CHECK("vector lanes", __enzyme_autodiff((void *)lanes, x), dlanes(x));
		CHECK("fwd vector lanes", __enzyme_fwddiff((void *)lanes, x, 1.0), dlanes(x));
		void *tape = __enzyme_augmentfwd((void *)stored, enzyme_out, x);
		CHECK("split integer parameter", __enzyme_reverse((void *)stored, enzyme_out, x, 1.0, tape), 2 * x);
	}
	return failures != 0;
}
