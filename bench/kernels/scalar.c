/* Issue 3: a long loop of transcendental updates, and a recursive function. */
#include <math.h>
#include "bench.h"

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double kernel(double x, double y, int n) {
	double a = x, b = y;
	for (int i = 0; i < n; i++) {
		double t = sin(a) * exp(-0.01 * b * b) + log1p(a * a);
		b = 0.5 * b + 0.1 * cos(t + b);
		a = tanh(t) + 0.01 * b;
	}
	return a + b;
}

__attribute__((noinline)) double recursive(double x, int depth) {
	if (depth == 0) return x;
	double r = recursive(sin(x) + 0.1 * x, depth - 1);
	return r * cos(x) + 0.01 * x;
}

typedef struct { double dx, dy; } D2;
D2 __enzyme_autodiff_kernel(void *, ...);

static void primal_kernel(void *p) { (void)p; bench_sink = kernel(0.3, 0.7, 10000); }
static void grad_kernel(void *p) { (void)p; D2 d = __enzyme_autodiff_kernel((void *)kernel, 0.3, 0.7, 10000); bench_sink = d.dx + d.dy; }
static void primal_rec(void *p) { (void)p; bench_sink = recursive(0.3, 1000); }
static void grad_rec(void *p) { (void)p; bench_sink = __enzyme_autodiff((void *)recursive, 0.3, 1000); }

int main(void) {
	/* The gradient is checked before it is timed. */
	double h = 1e-6;
	D2 d = __enzyme_autodiff_kernel((void *)kernel, 0.3, 0.7, 10000);
	double fd = (kernel(0.3 + h, 0.7, 10000) - kernel(0.3 - h, 0.7, 10000)) / (2 * h);
	if (fabs(d.dx - fd) > 1e-5 * fmax(1, fabs(fd))) { printf("kernel gradient wrong: %g vs %g\n", d.dx, fd); return 1; }
	double g = __enzyme_autodiff((void *)recursive, 0.3, 1000);
	fd = (recursive(0.3 + h, 1000) - recursive(0.3 - h, 1000)) / (2 * h);
	if (fabs(g - fd) > 1e-5 * fmax(1, fabs(fd))) { printf("recursive gradient wrong: %g vs %g\n", g, fd); return 1; }

	bench_report("scalar-loop(n=1e4)", bench_time(primal_kernel, 0), bench_time(grad_kernel, 0),
		bench_peak_bytes(primal_kernel, 0), bench_peak_bytes(grad_kernel, 0));
	bench_report("recursion(depth=1000)", bench_time(primal_rec, 0), bench_time(grad_rec, 0),
		bench_peak_bytes(primal_rec, 0), bench_peak_bytes(grad_rec, 0));
	return 0;
}
