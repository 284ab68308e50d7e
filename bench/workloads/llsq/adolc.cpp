// ADOL-C version of the llsq workload: llsq.hpp on adoubles, taped once.
#include <adolc/adolc.h>

#include "llsq.hpp"

void adolc_llsq_tape(int tag, const std::vector<double> &x, std::size_t n) {
	trace_on(tag);
	std::vector<adouble> a(x.size());
	for (size_t i = 0; i < x.size(); i++) a[i] <<= x[i];
	adouble y = llsq_objective(a, n);
	double out;
	y >>= out;
	trace_off();
}

void adolc_llsq_grad(int tag, const std::vector<double> &x, std::vector<double> &g) {
	gradient(tag, (int)x.size(), x.data(), g.data());
}
