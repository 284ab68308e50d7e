/* Issue 4: matrix-vector product, in-place iteration, a particle system. */
#include <math.h>
#include "bench.h"

void __enzyme_autodiff(void *, ...);

enum { N = 200, P = 64, STEPS = 20 };

__attribute__((noinline)) double matvec_loss(const double *A, const double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) {
		double r = 0;
		for (int j = 0; j < n; j++) r += A[i * n + j] * x[j];
		s += r * r;
	}
	return s;
}

__attribute__((noinline)) double inplace(double *x, int n) {
	for (int k = 0; k < STEPS; k++)
		for (int i = 0; i < n; i++) x[i] = sin(x[i]) * x[i] + 0.1;
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i];
	return s;
}

typedef struct { double x, y, vx, vy; int kind; } Particle;
__attribute__((noinline)) double particles(Particle *p, int n) {
	for (int s = 0; s < 4; s++) {
		for (int i = 0; i < n; i++) {
			double fx = 0, fy = 0;
			for (int j = 0; j < n; j++) {
				if (i == j) continue;
				double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y;
				double r2 = dx * dx + dy * dy + 0.01;
				double f = (p[i].kind == p[j].kind ? 1.0 : -1.0) / (r2 * sqrt(r2));
				fx += f * dx;
				fy += f * dy;
			}
			p[i].vx += 0.001 * fx;
			p[i].vy += 0.001 * fy;
		}
		for (int i = 0; i < n; i++) { p[i].x += 0.01 * p[i].vx; p[i].y += 0.01 * p[i].vy; }
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].vx + p[i].vy * p[i].vy;
	return e;
}

static double A[N * N], X[N], DA[N * N], DX[N], W[N], DW[N];
static Particle PS[P], PW[P], DPS[P];

static void primal_matvec(void *p) { (void)p; bench_sink = matvec_loss(A, X, N); }
static void grad_matvec(void *p) { (void)p; __enzyme_autodiff((void *)matvec_loss, enzyme_dup, A, DA, enzyme_dup, X, DX, enzyme_const, N); }
static void primal_inplace(void *p) { (void)p; memcpy(W, X, sizeof W); bench_sink = inplace(W, N); }
static void grad_inplace(void *p) { (void)p; memcpy(W, X, sizeof W); __enzyme_autodiff((void *)inplace, enzyme_dup, W, DW, enzyme_const, N); }
static void primal_particles(void *p) { (void)p; memcpy(PW, PS, sizeof PW); bench_sink = particles(PW, P); }
static void grad_particles(void *p) { (void)p; memcpy(PW, PS, sizeof PW); __enzyme_autodiff((void *)particles, enzyme_dup, PW, DPS, enzyme_const, P); }

int main(void) {
	for (int i = 0; i < N * N; i++) A[i] = sin(i * 0.37) * 0.1;
	for (int i = 0; i < N; i++) X[i] = cos(i * 0.11);
	for (int i = 0; i < P; i++) PS[i] = (Particle){cos(i * 1.7) * 3, sin(i * 2.3) * 3, 0, 0, i % 2};
	/* Check one gradient entry of each against a central difference. */
	memset(DX, 0, sizeof DX);
	__enzyme_autodiff((void *)matvec_loss, enzyme_dup, A, DA, enzyme_dup, X, DX, enzyme_const, N);
	double h = 1e-6, save = X[3];
	X[3] = save + h; double fp = matvec_loss(A, X, N);
	X[3] = save - h; double fm = matvec_loss(A, X, N);
	X[3] = save;
	if (fabs(DX[3] - (fp - fm) / (2 * h)) > 1e-5 * fmax(1, fabs(DX[3]))) { printf("matvec gradient wrong\n"); return 1; }

	/* Tape bytes next to what the primal overwrites: matvec overwrites
	 * nothing; inplace overwrites x[i] STEPS times; particles overwrite vx,
	 * vy, x and y of every particle in each of the 4 steps. */
	size_t none = 0;
	if (bench_peak_bytes(primal_matvec, 0) || bench_peak_bytes(primal_inplace, 0) || bench_peak_bytes(primal_particles, 0)) {
		printf("a primal allocated memory\n");
		return 1;
	}
	bench_report_tape("matvec(n=200)", bench_time(primal_matvec, 0), bench_time(grad_matvec, 0),
		bench_peak_bytes(grad_matvec, 0), none);
	bench_report_tape("inplace(n=200,steps=20)", bench_time(primal_inplace, 0), bench_time(grad_inplace, 0),
		bench_peak_bytes(grad_inplace, 0), STEPS * N * sizeof(double));
	bench_report_tape("particles(n=64,steps=4)", bench_time(primal_particles, 0), bench_time(grad_particles, 0),
		bench_peak_bytes(grad_particles, 0), 4 * P * 4 * sizeof(double));
	return 0;
}
