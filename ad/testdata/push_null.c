/* A buffer grown by realloc inside a helper, starting from NULL: the
   first call passes a null pointer, whose shadow is null, and the helper
   reallocates both. Reverse mode against central differences. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
double __enzyme_autodiff(void*, ...);
extern int enzyme_dup, enzyme_const;
static __attribute__((noinline)) double *push2(double *b, int *len, int *cap, double v) {
	if (*len == *cap) {
		*cap = *cap ? 2 * *cap : 2;
		b = (double *)realloc(b, (size_t)*cap * sizeof(double));
	}
	b[(*len)++] = v;
	return b;
}
double f(double *x, int n) {
	(void)n;
	double *buf = 0; int len = 0, cap = 0;
	for (int i = 0; i < 5; i++) { /* unrolled from -O2: the first call passes NULL */
		buf = push2(buf, &len, &cap, sin(x[i]));
		if (x[i] > 0.5) buf = push2(buf, &len, &cap, x[i] * x[i]);
	}
	double s = 0;
	for (int i = 0; i < len; i++) s += buf[i] * (i + 1);
	free(buf);
	return s;
}
int main() {
	double x[5] = {0.1, 0.7, 0.3, 0.9, 0.6}, dx[5] = {0};
	__enzyme_autodiff((void*)f, enzyme_dup, x, dx, enzyme_const, 5);
	double h = 1e-6;
	int fails = 0;
	for (int i = 0; i < 5; i++) { double s = x[i]; x[i] = s + h; double p = f(x, 5); x[i] = s - h; double m = f(x, 5); x[i] = s; double fd = (p - m) / (2 * h); int bad = fabs(dx[i] - fd) > 1e-6 * fmax(1, fabs(fd)); printf("%s d/dx[%d] %g fd %g\n", bad ? "FAIL" : "ok", i, dx[i], fd); fails += bad; }
	return fails != 0;
}
