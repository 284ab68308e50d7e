/* The program of TestShadowClearedToPositiveZero (signzero_test.go). */
#include <math.h>
#include <stdio.h>
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;
typedef struct { double v; int tag; double *p; } Cell;
void f(const double *x, double *out, Cell *c, int n) {
	for (int i = 0; i < n; i++) out[i] = sin(x[i]) * x[i];
	c->v = x[0] * x[1];
}
int main(void) {
	double x[3] = {0.3, -1.2, 2.5}, dx[3] = {0}, out[3], dout[3] = {1, 1, 1};
	double buf = 0, dbuf = 0;
	Cell c = {0, 1, &buf}, dc = {1, 1, &dbuf};
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, out, dout, enzyme_dup, &c, &dc, enzyme_const, 3);
	for (int i = 0; i < 3; i++)
		if (signbit(dout[i]) || dout[i] != 0) { printf("dout[%d] = %g\n", i, dout[i]); return 1; }
	if (signbit(dc.v) || dc.v != 0) { printf("dc.v = %g\n", dc.v); return 1; }
	double h = 1e-6;
	for (int i = 0; i < 3; i++) {
		double s = x[i], fd = 0, o[3];
		Cell cc;
		x[i] = s + h; f(x, o, &cc, 3); for (int k = 0; k < 3; k++) fd += o[k]; fd += cc.v;
		x[i] = s - h; f(x, o, &cc, 3); for (int k = 0; k < 3; k++) fd -= o[k]; fd -= cc.v;
		x[i] = s;
		fd /= 2 * h;
		if (fabs(dx[i] - fd) > 1e-6 * fmax(1, fabs(fd))) { printf("dx[%d] = %g, fd %g\n", i, dx[i], fd); return 1; }
	}
	printf("ok\n");
	return 0;
}
