/* The program of TestHeaderDataCopyThroughInt (headerdatacopy_test.go): a
   header of ints with doubles after it in one allocation, copied by a byte
   count through int pointers. The pointers' type says nothing of the
   bytes past the header: the gradient is exact, or the derivative stops
   naming the copy; never the zero gradient the copy as ints gave. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) void copyblock(int *dst, const int *src, size_t bytes) { memcpy(dst, src, bytes); }

double f(const double *x, int n) {
	size_t bytes = 4 * sizeof(int) + n * sizeof(double);
	int *a = malloc(bytes), *b = malloc(bytes);
	a[0] = n, a[1] = 2, a[2] = 3, a[3] = 4;
	double *da = (double *)(a + 4);
	for (int i = 0; i < n; i++)
		da[i] = x[i] * x[i];
	copyblock(b, a, bytes);
	double *db = (double *)(b + 4), s = 0;
	for (int i = 0; i < b[0]; i++)
		s += sin(db[i]);
	free(a), free(b);
	return s;
}

int main(void) {
	double x[3] = {0.3, 0.7, -0.4}, dx[3] = {0};
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 3);
	for (int i = 0; i < 3; i++)
		if (fabs(dx[i] - cos(x[i] * x[i]) * 2 * x[i]) > 1e-9) {
			printf("WRONG gradient %d: %g\n", i, dx[i]);
			return 1;
		}
	printf("ok\n");
	return 0;
}
