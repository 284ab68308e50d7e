// ADOL-C version of the gmm-cxx workload: gmm.hpp on adoubles, taped once.
#include <adolc/adolc.h>

#include "gmm.hpp"

void adolc_gmm_tape(int tag, const GMMInput &in, const std::vector<double> &alphas, const std::vector<double> &means,
                    const std::vector<double> &icf) {
	trace_on(tag);
	std::vector<adouble> a(alphas.size()), m(means.size()), q(icf.size());
	for (size_t i = 0; i < a.size(); i++) a[i] <<= alphas[i];
	for (size_t i = 0; i < m.size(); i++) m[i] <<= means[i];
	for (size_t i = 0; i < q.size(); i++) q[i] <<= icf[i];
	adouble y = gmm_objective(in, a, m, q);
	double out;
	y >>= out;
	trace_off();
}

void adolc_gmm_grad(int tag, const std::vector<double> &params, std::vector<double> &grad) {
	gradient(tag, (int)params.size(), params.data(), grad.data());
}
