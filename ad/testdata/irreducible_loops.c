/* The program of TestIrreducibleLoopsLink (tests/e2e/irreducible_test.go): loops entered
   at two places (gotos into a loop body, as in Cephes' incbi), which the
   pre-AD pipeline makes reducible. The gradient, reverse and forward mode,
   against central differences, for trip counts that enter either way. */
#include <math.h>
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double twoentries(double x, int n) {
	double s = 0.5;
	int i = 0;
	if (n > 3)
		goto inside;
loop:
	s = s * x + sin(s);
inside:
	s = s * 0.5 + x * x;
	if (++i < n)
		goto loop;
	return s;
}

double f(double x, int n) { return twoentries(x, n) + twoentries(x * 0.5, n + 2); }

int main(void) {
	int bad = 0;
	for (int n = 1; n < 7; n++) {
		double x = 0.7, h = 1e-6;
		double fd = (f(x + h, n) - f(x - h, n)) / (2 * h);
		double g = __enzyme_autodiff((void *)f, x, n), t = __enzyme_fwddiff((void *)f, x, 1.0, n);
		printf("n %d: reverse %.9g forward %.9g central difference %.9g\n", n, g, t, fd);
		bad |= !(fabs(g - fd) < 1e-6 && fabs(t - fd) < 1e-6);
	}
	return bad;
}
