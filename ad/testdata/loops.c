/* The program of TestLoops (loops_test.go), compiled after checkPrelude. */
double __enzyme_autodiff(void *, ...);

/* A counted loop of transcendental updates. */
__attribute__((noinline)) double iterate(double x, int n) {
	double y = x;
	for (int i = 0; i < n; i++) y = sin(y) * x + 0.5 * y;
	return y;
}

/* Nested loops whose inner trip count depends on the outer index. */
__attribute__((noinline)) double triangle(double x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j <= i; j++) s += sin(x * (i + 1)) * cos(x * (j + 1)) / (1 + s * s);
	return s;
}

/* A data-dependent while loop: Newton's iteration for sqrt(a) until convergence. */
__attribute__((noinline)) double newton_sqrt(double a) {
	double x = a > 1 ? a : 1;
	while (fabs(x * x - a) > 1e-14 * a) x = 0.5 * (x + a / x);
	return x;
}

/* An early return inside a loop. */
__attribute__((noinline)) double early(double x, int n) {
	double p = 1;
	for (int i = 0; i < n; i++) {
		p *= x;
		if (p > 100) return p + exp(x);
	}
	return p * log(x);
}

static double fd(double (*f)(double, int), double x, int n) {
	double h = 1e-6 * fmax(1, fabs(x));
	return (f(x + h, n) - f(x - h, n)) / (2 * h);
}
#define CHECKFD(what, got, want) check(what, got, want, 1e-6)

int main(void) {
	volatile int ns[] = {0, 1, 7, 40};
	volatile double xs[] = {0.3, 1.7};
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 4; b++) {
			double x = xs[a];
			int n = ns[b];
			CHECKFD("iterate", __enzyme_autodiff((void *)iterate, x, n), fd(iterate, x, n));
			CHECKFD("triangle", __enzyme_autodiff((void *)triangle, x, n), fd(triangle, x, n));
			CHECKFD("early", __enzyme_autodiff((void *)early, x + 1.5, n), fd(early, x + 1.5, n));
		}
	volatile double as[] = {0.5, 2.0, 9.0, 1234.5};
	for (int i = 0; i < 4; i++) CHECK("newton", __enzyme_autodiff((void *)newton_sqrt, as[i]), 0.5 / sqrt(as[i]));
	return failures != 0;
}
