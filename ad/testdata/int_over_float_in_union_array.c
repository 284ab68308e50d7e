// Arrays of unions whose IR type is the integer member (two 64-bit
// integers beside one double: clang lays the union out as [2 x i64]):
// doubles and integer bit patterns stored at variable indices. An element
// overwritten by integers carries no derivative; the others keep theirs.
#include <math.h>
#include <stdint.h>
#include <stdio.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

#define N 4
typedef union { int64_t i[2]; double d; } cell;

__attribute__((noinline)) double f(const double *x, int k, int n) {
	cell c[N];
	for (int i = 0; i < n; i++)
		c[i].d = x[i] * x[i];
	c[k].i[0] = 0x3FF8000000000000ll + k; // 1.5 and a bit
	c[k].i[1] = 7;
	double s = 0;
	for (int i = 0; i < n; i++)
		s += c[i].d * x[i];
	return s;
}

double loss(const double *x) { return f(x, 2, N); }

int main(void) {
	double x[N] = {0.3, -0.7, 1.1, 0.5}, g[N] = {0};
	__enzyme_autodiff((void *)loss, enzyme_dup, x, g);
	int bad = 0;
	for (int i = 0; i < N; i++) {
		double h = 1e-6, xp[N], xm[N];
		for (int j = 0; j < N; j++)
			xp[j] = xm[j] = x[j];
		xp[i] += h;
		xm[i] -= h;
		double fd = (loss(xp) - loss(xm)) / (2 * h);
		if (fabs(fd - g[i]) > 1e-6 * (1 + fabs(fd))) {
			printf("FAIL g[%d]=%g fd=%g\n", i, g[i], fd);
			bad = 1;
		}
	}
	printf("%s\n", bad ? "FAIL" : "union cells done");
	return bad;
}
