/* The program of TestCalls (calls_test.go), compiled after checkPrelude. */
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double sq(double x) { return x * x; }
__attribute__((noinline)) double poly(double x, double y) { return sq(x) * y + sin(x * y); }

/* Several call sites, calls in a loop. */
__attribute__((noinline)) double many(double x, int n) {
	double s = poly(x, 2.0) + poly(3.0, x);
	for (int i = 0; i < n; i++) s += poly(x, s * 0.01) * 0.1;
	return s;
}

/* Direct recursion. */
__attribute__((noinline)) double rec(double x, int n) {
	if (n == 0) return x;
	return sin(rec(x, n - 1)) + 0.5 * x;
}

/* Mutual recursion. */
double odd(double x, int n);
__attribute__((noinline)) double even(double x, int n) { return n == 0 ? x : cos(odd(x, n - 1)) * x; }
__attribute__((noinline)) double odd(double x, int n) { return n == 0 ? x : exp(-even(x, n - 1)) + x; }

static double fd(double (*f)(double, int), double x, int n) {
	double h = 1e-6 * fmax(1, fabs(x));
	return (f(x + h, n) - f(x - h, n)) / (2 * h);
}
#define CHECKFD(what, got, want) check(what, got, want, 1e-6)

int main(void) {
	volatile int ns[] = {0, 1, 5, 30};
	volatile double xs[] = {0.3, 1.1};
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 4; b++) {
			double x = xs[a];
			int n = ns[b];
			CHECKFD("many", __enzyme_autodiff((void *)many, x, n), fd(many, x, n));
			CHECKFD("rec", __enzyme_autodiff((void *)rec, x, n), fd(rec, x, n));
			CHECKFD("even", __enzyme_autodiff((void *)even, x, n), fd(even, x, n));
		}
	return failures != 0;
}
