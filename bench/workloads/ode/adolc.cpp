// ADOL-C version of the ode workload: ode.hpp on adoubles, taped once.
#include <adolc/adolc.h>

#include "ode.hpp"

void adolc_ode_tape(int tag, const std::vector<double> &x, int s) {
	trace_on(tag);
	std::vector<adouble> a(x.size());
	for (size_t i = 0; i < x.size(); i++) a[i] <<= x[i];
	adouble y = ode_last(a, s);
	double out;
	y >>= out;
	trace_off();
}

void adolc_ode_grad(int tag, const std::vector<double> &x, std::vector<double> &g) {
	gradient(tag, (int)x.size(), x.data(), g.data());
}
