/* Calls through function pointers whose target the IR does not fix: a
   callback parameter given table entries chosen at run time, a pointer
   chosen by a branch, and pointers to libm functions; reverse and forward
   mode against a central difference. */
#include <stdio.h>
#include <math.h>
double __enzyme_autodiff(void*, ...);
double __enzyme_fwddiff(void*, ...);
typedef double (*un)(double);
static double f0(double v) { return sin(v) * v; }
static double f1(double v) { return exp(0.5 * v); }
static double f2(double v) { return v * v * v; }
static const un tab[3] = {f0, f1, f2};
static un libm[3] = {sin, exp, sqrt};
__attribute__((noinline)) double apply(un fp, double x) { return fp(x) + 1; }
double g(double x) {
	double s = 0;
	for (int i = 0; i < 3; i++) s += apply(tab[i], x * (i + 1));
	un h = x > 0 ? f0 : f2;
	for (int i = 0; i < 3; i++) s += apply(libm[i], x);
	return s + h(x);
}
int main() {
	double x = 0.7, h = 1e-6;
	double fd = (g(x + h) - g(x - h)) / (2 * h);
	double r = __enzyme_autodiff((void*)g, x), fw = __enzyme_fwddiff((void*)g, x, 1.0);
	printf("%g %g %g\n", r, fw, fd);
	return !(fabs(r - fd) < 1e-6 && fabs(fw - fd) < 1e-6);
}
