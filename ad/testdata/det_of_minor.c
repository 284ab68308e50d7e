/* The determinant by expansion by minors, as several tests' programs use
 * it (prepended to them after checkPrelude): row and column lists r and c
 * (linked lists ending at index m, 1-based) edited and restored by the
 * recursion, the matrix a of size m read at the rows and columns left.
 * A recursion calling itself inside its loop: every call's tape is a field
 * of its caller's iteration record (frametape.go). */
__attribute__((noinline)) static double det_of_minor(const double *a, long m, long n, long *r, long *c) {
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
