/* The program of TestExitEntryLastIterationRun (exitentry_test.go), compiled after memoryPrelude. */
enum { N = 13 };
int sink;
__attribute__((noinline)) static void step(int *np, double *u, double *un, double *ap) {
	int n = *np;
	for (int i = 0; i < n; i++)
		un[i] = u[i] + 0.1 * *ap * (u[(i + 1) % n] - u[i]) + 0.01 * sin(u[i]);
	if (sink) *np = 3;
}
static double f(double *x, int m) {
	int n = m;
	double a = 0.8, u[N], un[N];
	for (int i = 0; i < n; i++) u[i] = x[i];
	for (int s = 0; s < 6; s++) {
		step(&n, u, un, &a);
		for (int i = 0; i < n; i++) u[i] = un[i];
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += u[i] * u[i] * (i + 1);
	return e;
}
int main(void) {
	double x[N], dx[N] = {0};
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.5 * sin(1.3 * i);
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
	fdcheck("x", f, x, N, dx);
	return failures != 0;
}