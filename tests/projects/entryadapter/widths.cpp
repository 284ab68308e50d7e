// Forward mode in batches of two and three tangents through one entry
// symbol (the same signature): AD reads each call's width at link time,
// so an adapter, which would receive it as a parameter, may not serve it.
#include <cmath>
#include <cstdio>

template <typename R, typename... T> R __enzyme_fwddiff(void *, T...);
extern int enzyme_width, enzyme_dupv;

void f(const double *x, double *y) { y[0] = x[0] * x[0] * x[1] + std::sin(x[1]); }

int main() {
	double x[2] = {1.5, 0.3}, y[1];
	double t2[4] = {1, 0, 0, 1}, d2[2] = {0, 0};
	double t3[6] = {1, 0, 0, 1, 1, 1}, d3[3] = {0, 0, 0};
	long xs = sizeof(double) * 2, ys = sizeof(double);
	__enzyme_fwddiff<void>((void *)f, enzyme_width, 2, enzyme_dupv, xs, x, t2, enzyme_dupv, ys, y, d2);
	__enzyme_fwddiff<void>((void *)f, enzyme_width, 3, enzyme_dupv, xs, x, t3, enzyme_dupv, ys, y, d3);
	double g0 = 2 * x[0] * x[1], g1 = x[0] * x[0] + std::cos(x[1]);
	double want[5] = {g0, g1, g0, g1, g0 + g1}, got[5] = {d2[0], d2[1], d3[0], d3[1], d3[2]};
	int bad = 0;
	for (int i = 0; i < 5; i++) {
		if (std::fabs(got[i] - want[i]) > 1e-12 * (1 + std::fabs(want[i]))) {
			std::printf("FAIL widths: tangent %d = %.17g, want %.17g\n", i, got[i], want[i]);
			bad = 1;
		}
	}
	if (!bad)
		std::printf("ok widths\n");
	return bad;
}
