// ADOL-C version of the ba-cxx workload: ba.hpp on adoubles.
#include <adolc/adolc.h>

#include "ba.hpp"

void adolc_ba_tape(int tag, const BAInput &in) {
	trace_on(tag);
	adouble a[17], e[2];
	const double *cam = &in.cams[in.obs[0] * 11], *X = &in.X[in.obs[1] * 3];
	for (int i = 0; i < 11; i++) a[i] <<= cam[i];
	for (int i = 0; i < 3; i++) a[11 + i] <<= X[i];
	a[14] <<= in.w[0];
	a[15] <<= in.feats[0];
	a[16] <<= in.feats[1];
	std::array<adouble, 2> proj = project(a, a + 11);
	e[0] = a[14] * (proj[0] - a[15]);
	e[1] = a[14] * (proj[1] - a[16]);
	double out;
	e[0] >>= out;
	e[1] >>= out;
	trace_off();
}

void adolc_ba_jacobian(int tag, const BAInput &in, std::vector<double> &jac) {
	static double **J;
	if (!J) J = myalloc2(2, 17);
	double x[17];
	for (int o = 0; o < in.p; o++) {
		const double *cam = &in.cams[in.obs[2 * o] * 11], *X = &in.X[in.obs[2 * o + 1] * 3];
		for (int i = 0; i < 11; i++) x[i] = cam[i];
		for (int i = 0; i < 3; i++) x[11 + i] = X[i];
		x[14] = in.w[o];
		x[15] = in.feats[2 * o];
		x[16] = in.feats[2 * o + 1];
		jacobian(tag, 2, 17, x, J);
		for (int r = 0; r < 2; r++)
			for (int j = 0; j < 15; j++) jac[(size_t)o * 30 + r * 15 + j] = J[r][j];
	}
}
