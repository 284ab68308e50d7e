// ADOL-C version of the GMM workload: gmm.h on adoubles, taped once.
#include <adolc/adolc.h>
#include <cmath>
#include <vector>
#define REAL adouble
#define ALLOC(n) (new adouble[n])
#define FREE(p) (delete[] (p))
#include "gmm.h"

extern "C" void adolc_gmm_tape(int tag, const Gmm *g, const double *p) {
	int np = gmm_params(g);
	trace_on(tag);
	std::vector<adouble> a(np);
	for (int i = 0; i < np; i++) a[i] <<= p[i];
	adouble y = gmm_objective(g, a.data());
	double out;
	y >>= out;
	trace_off();
}

extern "C" void adolc_gmm_grad(int tag, const Gmm *g, const double *p, double *grad) {
	gradient(tag, gmm_params(g), p, grad);
}
