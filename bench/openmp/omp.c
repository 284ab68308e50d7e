/* OpenMP kernels: how a gradient scales from 1 to 2 threads next to its
 * primal, and its J/F against the serial build's. bench/openmp.go builds
 * this file with gozyme-cc -O2 -fopenmp (run with OMP_NUM_THREADS=1 and 2
 * on two cores) and without -fopenmp (the serial build: the pragmas are
 * ignored). Each kernel checks its gradient against central differences,
 * then prints "OMPBENCH name primal_s gradient_s". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "timing.h"

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 1 << 20, R = 2000, C = 500 };

/* A stencil whose iterations all read the shared scalar a, summed by a
 * reduction: the reverse adds into dx from neighbouring iterations and
 * into da from all of them. */
__attribute__((noinline)) double stencil(const double *x, double a, int n) {
	double s = 0;
	#pragma omp parallel for reduction(+:s)
	for (int i = 1; i < n - 1; i++) {
		double v = x[i - 1] - 2 * x[i] + x[i + 1] + a * sin(x[i]);
		s += v * v;
	}
	return s;
}

/* Rows of a dense matrix-vector product through tanh: every row reads all
 * of x, so every thread's reverse adds into all of dx. */
__attribute__((noinline)) double matvec(const double *A, const double *x, int r, int c) {
	double s = 0;
	#pragma omp parallel for reduction(+:s)
	for (int i = 0; i < r; i++) {
		double y = 0;
		for (int j = 0; j < c; j++)
			y += A[(size_t)i * c + j] * x[j];
		s += tanh(y);
	}
	return s;
}

static double *x, *dx, *A, a = 0.7, da;
static int failures;

static void check(const char *what, double got, double want) {
	if (!(fabs(got - want) <= 1e-5 * fmax(1, fabs(want)))) {
		printf("WRONG %s: got %.17g want %.17g\n", what, got, want);
		failures++;
	}
}

static void stencil_primal(void *p) { (void)p; bench_sink = stencil(x, a, N); }
static void stencil_grad(void *p) {
	(void)p;
	memset(dx, 0, N * sizeof *dx);
	da = __enzyme_autodiff((void *)stencil, enzyme_dup, x, dx, a, enzyme_const, N);
	bench_sink = dx[N / 2] + da;
}
static void matvec_primal(void *p) { (void)p; bench_sink = matvec(A, x, R, C); }
static void matvec_grad(void *p) {
	(void)p;
	memset(dx, 0, C * sizeof *dx);
	__enzyme_autodiff((void *)matvec, enzyme_const, A, enzyme_dup, x, dx, enzyme_const, R, enzyme_const, C);
	bench_sink = dx[C / 2];
}

int main(void) {
	x = malloc(N * sizeof *x);
	dx = malloc(N * sizeof *dx);
	A = malloc((size_t)R * C * sizeof *A);
	for (int i = 0; i < N; i++)
		x[i] = sin(0.001 * i) + 0.1 * cos(0.37 * i);
	for (size_t k = 0; k < (size_t)R * C; k++)
		A[k] = 0.01 * sin(0.7 * k);

	double h = 1e-4; /* the sums are long: a larger step keeps rounding out of the differences */
	stencil_grad(NULL);
	for (int i = 1; i < N; i += N / 7) {
		double s = x[i];
		x[i] = s + h; double fp = stencil(x, a, N);
		x[i] = s - h; double fm = stencil(x, a, N);
		x[i] = s;
		check("stencil dx", dx[i], (fp - fm) / (2 * h));
	}
	check("stencil da", da, (stencil(x, a + h, N) - stencil(x, a - h, N)) / (2 * h));
	printf("OMPBENCH stencil %.9g %.9g\n", bench_time(stencil_primal, NULL), bench_time(stencil_grad, NULL));

	matvec_grad(NULL);
	for (int j = 0; j < C; j += C / 7) {
		double s = x[j];
		x[j] = s + h; double fp = matvec(A, x, R, C);
		x[j] = s - h; double fm = matvec(A, x, R, C);
		x[j] = s;
		check("matvec dx", dx[j], (fp - fm) / (2 * h));
	}
	printf("OMPBENCH matvec %.9g %.9g\n", bench_time(matvec_primal, NULL), bench_time(matvec_grad, NULL));
	return failures != 0;
}
