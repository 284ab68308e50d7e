/* Where loops are vectorized around AD (pipeline_test.go, TestVectorizeAfterAD).
 * rows's inner loops and flat's loop are loops LLVM's vectorizer takes at
 * -O2; rows's second inner loop has a pragma asking to vectorize it.
 * Prints the largest error of the gradients against central differences
 * over several lengths. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) double rows(const double *restrict x, double *restrict y, int m, int n) {
	double s = 0;
	for (int r = 0; r < m; r++) {
		const double *xr = x + r * n;
		double *yr = y + r * n;
		for (int i = 0; i < n; i++) yr[i] = xr[i] * xr[i] * 0.5 + xr[i];
#pragma clang loop vectorize_width(2) interleave_count(1)
		for (int i = 0; i < n; i++) yr[i] = yr[i] * xr[(i + 1) % n] - 0.25;
		for (int i = 0; i < n; i++) s += sin(yr[i]);
	}
	return s;
}

__attribute__((noinline)) double flat(const double *restrict x, double *restrict y, int n) {
	for (int i = 0; i < n; i++) y[i] = x[i] * x[i] * 0.5 + x[i];
	double s = 0;
	for (int i = 0; i < n; i++) s += sin(y[i]);
	return s;
}

__attribute__((noinline)) void grad_rows(const double *x, double *dx, double *y, double *dy, int m, int n) {
	__enzyme_autodiff((void *)rows, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, m, enzyme_const, n);
}

__attribute__((noinline)) void grad_flat(const double *x, double *dx, double *y, double *dy, int n) {
	__enzyme_autodiff((void *)flat, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
}

int main(void) {
	double err = 0;
	for (int n = 1; n <= 37; n += 4) {
		int m = 3, len = m * n;
		double *x = malloc(len * sizeof *x), *y = malloc(len * sizeof *y);
		double *dr = calloc(len, sizeof *dr), *df = calloc(len, sizeof *df), *dy = calloc(len, sizeof *dy);
		for (int i = 0; i < len; i++) x[i] = 0.3 + 0.7 * sin(1.3 * i);
		grad_rows(x, dr, y, dy, m, n);
		for (int i = 0; i < len; i++) dy[i] = 0;
		grad_flat(x, df, y, dy, len);
		for (int i = 0; i < len; i++) {
			double h = 1e-6, save = x[i];
			x[i] = save + h;
			double up = rows(x, y, m, n), upf = flat(x, y, len);
			x[i] = save - h;
			double down = rows(x, y, m, n), downf = flat(x, y, len);
			x[i] = save;
			double fd = (up - down) / (2 * h), fdf = (upf - downf) / (2 * h);
			err = fmax(err, fabs(dr[i] - fd) / fmax(1, fabs(fd)));
			err = fmax(err, fabs(df[i] - fdf) / fmax(1, fabs(fdf)));
		}
		free(x), free(y), free(dr), free(df), free(dy);
	}
	printf("%.3g\n", err);
	return 0;
}
