/* The program of TestConstGlobalShadowUnknown (constshadow_test.go). */
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double w[4] = {1, 2, 3, 4};
static double *const tables[1] = {w};
__attribute__((noinline)) double pick(double *const *rows, int n, int which) {
	double *const *pp = which ? rows : tables;
	double s = 0;
	for (int i = 0; i < n; i++) s += pp[0][i] * pp[0][i];
	return s;
}
double f(double *x, int n) {
	double *rows[1] = {x};
	return pick(rows, n, n > 5);
}
int main(void) {
	double x[4] = {1, 2, 3, 4}, dx[4] = {0};
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 4);
	return 0;
}
