/* The program of TestConstGlobalShadow (constshadow_test.go), compiled after checkPrelude. */
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
static const double c[4] = {1.5, 2.5, -0.5, 3.0};
static const double e[4] = {0.25, -1.0, 2.0, 0.5};
static const double *const tables[2] = {c, e};
/* s = Σ p[i]·x[i]·x[i] with p = x or c. */
__attribute__((noinline)) double pick(const double *x, int n, int which) {
	const double *p = which ? x : c;
	double s = 0;
	for (int i = 0; i < n; i++) s += p[i] * x[i] * x[i];
	return s;
}
/* s = Σ pp[0][i]·pp[1][i]·x[i] with pp = rows or tables. */
__attribute__((noinline)) double pick2(const double *x, const double *const *rows, int n, int which) {
	const double *const *pp = which ? rows : tables;
	double s = 0;
	for (int i = 0; i < n; i++) s += pp[0][i] * pp[1][i] * x[i];
	return s;
}
double f(double *x, int n) {
	const double *rows[2] = {x, x};
	return pick(x, n, 1) + pick(x, n, 0) + 2 * pick2(x, rows, n, n < 3) + pick2(x, rows, n, 1);
}
static double want(const double *x, int i) { return 3 * x[i] * x[i] + 2 * x[i] * c[i] + 2 * c[i] * e[i] + 3 * x[i] * x[i]; }
int main(void) {
	double x[4] = {0.3, -0.7, 1.1, 0.5};
	for (int round = 0; round < 2; round++) {
		double dx[4] = {0};
		__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 4);
		for (int i = 0; i < 4; i++) {
			char what[32];
			snprintf(what, sizeof what, "dx[%d]", i);
			CHECK(what, dx[i], want(x, i));
		}
	}
	double ds[4] = {0};
	void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, x, ds, enzyme_const, 4);
	__enzyme_reverse((void *)f, enzyme_dup, x, ds, enzyme_const, 4, 1.0, tape);
	for (int i = 0; i < 4; i++) {
		char what[32];
		snprintf(what, sizeof what, "split dx[%d]", i);
		CHECK(what, ds[i], want(x, i));
		double t[4] = {0};
		t[i] = 1;
		snprintf(what, sizeof what, "tangent[%d]", i);
		CHECK(what, __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, 4), want(x, i));
	}
	return failures != 0;
}
