/* Where loops are vectorized around AD (pipeline_test.go, TestVectorizeAfterAD):
 * scale's first loop is one LLVM's vectorizer takes at -O2, its second one
 * a pragma asks to vectorize. Prints the largest error of the gradient
 * against central differences over several lengths. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) double scale(const double *restrict x, double *restrict y, int n) {
	for (int i = 0; i < n; i++) y[i] = x[i] * x[i] * 0.5 + x[i];
#pragma clang loop vectorize_width(2) interleave_count(1)
	for (int i = 0; i < n; i++) y[i] = y[i] * x[(i + 1) % n] - 0.25;
	double s = 0;
	for (int i = 0; i < n; i++) s += sin(y[i]);
	return s;
}

__attribute__((noinline)) void gradient(const double *x, double *dx, double *y, double *dy, int n) {
	__enzyme_autodiff((void *)scale, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
}

int main(void) {
	double err = 0;
	for (int n = 1; n <= 37; n += 4) {
		double *x = malloc(n * sizeof *x), *dx = calloc(n, sizeof *dx);
		double *y = malloc(n * sizeof *y), *dy = calloc(n, sizeof *dy);
		for (int i = 0; i < n; i++) x[i] = 0.3 + 0.7 * sin(1.3 * i);
		gradient(x, dx, y, dy, n);
		for (int i = 0; i < n; i++) {
			double h = 1e-6, save = x[i];
			x[i] = save + h;
			double up = scale(x, y, n);
			x[i] = save - h;
			double down = scale(x, y, n);
			x[i] = save;
			double fd = (up - down) / (2 * h);
			err = fmax(err, fabs(dx[i] - fd) / fmax(1, fabs(fd)));
		}
		free(x), free(dx), free(y), free(dy);
	}
	printf("%.3g\n", err);
	return 0;
}
