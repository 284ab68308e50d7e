/* The program of TestKnRCalls (castcallee_test.go): C without prototypes,
   in the style of Cephes. horner is declared `double horner();` and called
   with a char * where its K&R definition takes a double *: the call goes
   through a cast of the function, which -O0 keeps. The gradient through
   it, reverse and forward mode, against a central difference. */
#include <math.h>
#include <stdio.h>
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double horner();
static double coef[4] = {0.25, -1.5, 2.0, 0.75};

double f(double x) { return horner(x, (char *)coef, 3) * sin(x) + horner(x * x, (char *)coef, 2); }

double horner(x, c, n)
double x;
double *c;
int n;
{
	double y = *c++;
	do
		y = y * x + *c++;
	while (--n);
	return y;
}

int main(void) {
	double x = 0.7, h = 1e-6;
	double fd = (f(x + h) - f(x - h)) / (2 * h);
	double g = __enzyme_autodiff((void *)f, x), t = __enzyme_fwddiff((void *)f, x, 1.0);
	printf("reverse %.9g forward %.9g central difference %.9g\n", g, t, fd);
	return !(fabs(g - fd) < 1e-6 && fabs(t - fd) < 1e-6);
}
