#include <math.h>
#include <stdio.h>
/* The compile (-O2) folds blend(x, 0) to x*x and drops the call of other
   from the native code; the bitcode still calls it. Linked at -O0, the
   optimizer before AD keeps that call, so other's module (loss/other.c)
   must join the merge although no native symbol leads to it. */
double __enzyme_autodiff(void *, ...);
double other(double);
static double blend(double x, int k) { return k ? other(x) : x * x; }
static double loss(double x) { return blend(x, 0); }
int main(void) {
	int failures = 0;
	for (double x = -1; x <= 1.5; x += 0.5) {
		double g = __enzyme_autodiff((void *)loss, x), want = 2 * x;
		printf("bconly %g %.17g %.17g\n", x, g, want);
		if (fabs(g - want) > 1e-12 * fmax(1, fabs(want))) failures++;
	}
	printf("failures %d\n", failures);
	return failures != 0;
}
