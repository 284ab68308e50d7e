// ADOL-C version of the BA workload: ba.h on adoubles, taped once for one
// observation and reused for all (the rotation takes the same branch). The
// feature is taped as two more independents, since d err / d w depends on it.
#include <adolc/adolc.h>
#include <cmath>
#define REAL adouble
#include "ba.h"

// The taped function: err(p, feat) with feat active, so that the tape holds
// for every observation.
static void reproj_feat(const adouble *a, adouble *e) {
	adouble proj[2];
	ba_project(a, proj);
	e[0] = a[14] * (proj[0] - a[15]);
	e[1] = a[14] * (proj[1] - a[16]);
}

extern "C" void adolc_ba_tape(int tag, const double *p, const double *feat) {
	trace_on(tag);
	adouble a[BA_NP + 2], e[2];
	for (int i = 0; i < BA_NP; i++) a[i] <<= p[i];
	a[BA_NP] <<= feat[0];
	a[BA_NP + 1] <<= feat[1];
	reproj_feat(a, e);
	double out;
	e[0] >>= out;
	e[1] >>= out;
	trace_off();
}

// adolc_ba_jacobian writes the 2x15 Jacobian of each of m observations.
extern "C" void adolc_ba_jacobian(int tag, int m, const double *p, const double *feat, double *jac) {
	static double **J;
	if (!J) J = myalloc2(2, BA_NP + 2);
	double in[BA_NP + 2];
	for (int o = 0; o < m; o++) {
		for (int j = 0; j < BA_NP; j++) in[j] = p[o * BA_NP + j];
		in[BA_NP] = feat[2 * o];
		in[BA_NP + 1] = feat[2 * o + 1];
		jacobian(tag, 2, BA_NP + 2, in, J);
		for (int r = 0; r < 2; r++)
			for (int j = 0; j < BA_NP; j++) jac[o * 2 * BA_NP + r * BA_NP + j] = J[r][j];
	}
}
