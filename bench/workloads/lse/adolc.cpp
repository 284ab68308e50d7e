// ADOL-C version of the lse workload: lse.hpp on adoubles, taped once.
#include <adolc/adolc.h>

#include "lse.hpp"

void adolc_lse_tape(int tag, const std::vector<double> &x) {
	trace_on(tag);
	std::vector<adouble> a(x.size());
	for (size_t i = 0; i < x.size(); i++) a[i] <<= x[i];
	adouble y = logsumexp(a);
	double out;
	y >>= out;
	trace_off();
}

void adolc_lse_grad(int tag, const std::vector<double> &x, std::vector<double> &g) {
	gradient(tag, (int)x.size(), x.data(), g.data());
}
