/* Reloads across a split by type (TestTypedReloads in tbaaalias_test.go).
 * det_of_minor is the determinant by expansion by minors, recursively: between
 * a recursive call's augmented forward and its reverse the caller writes
 * only long indices (c[prev] = j), so the callee's reverse reads the double
 * entries of a, and the pointer to them, again instead of caching them.
 * cubes writes the memory its callee read as a double through a union's long
 * member: clang tags union members as any type (char), which may alias a
 * double, so the callee's read is cached. The same program built with -fno-strict-aliasing (no tags) must
 * give the same gradients. */
#include <string.h>
static double det_of_minor(const double *a, long m, long n, long *r, long *c) {
	long row = r[m];
	if (n == 1) return a[row * m + c[m]];
	r[m] = r[row];
	double det = 0;
	int plus = 1;
	long prev = m;
	for (long k = 0, j = c[m]; k < n; k++, prev = j, j = c[j]) {
		c[prev] = c[j];
		double minor = det_of_minor(a, m, n - 1, r, c);
		c[prev] = j;
		double term = a[row * m + j] * minor;
		det = plus ? det + term : det - term;
		plus = !plus;
	}
	r[m] = row;
	return det;
}
static double det(double *a, int n) {
	long m = 4, r[5], c[5];
	(void)n;
	for (long i = 0; i < m; i++) r[i] = c[i] = i + 1;
	r[m] = c[m] = 0;
	return det_of_minor(a, m, m, r, c);
}
union Cell {
	double d;
	long bits;
};
__attribute__((noinline)) double cube(const double *p) { return *p * *p * *p; }
__attribute__((noinline)) double cubes(union Cell *cells, const double *x, int n) {
	double s = 0;
	for (int k = 0; k < n; k++) {
		cells[k].d = x[k];
		s += cube(&cells[k].d) * (k + 1); /* read as a double */
		cells[k].bits = k; /* overwrites what cube read */
	}
	return s;
}
static double punned(double *x, int n) {
	union Cell cells[8];
	double s = cubes(cells, x, n);
	for (int k = 0; k < n; k++) s += 1e-3 * cells[k].bits;
	return s;
}
int main(void) {
	enum { N = 16 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = sin(1.3 * i * i + 0.7 * i + 0.2);
	GRADCHECK(det);
	{
		double xc[8], dx[8] = {0};
		memcpy(xc, x, sizeof xc);
		__enzyme_autodiff((void *)punned, enzyme_dup, xc, dx, enzyme_const, 8);
		fdcheck("punned", punned, x, 8, dx);
	}
	return failures != 0;
}
