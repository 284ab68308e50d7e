// ADOL-C version of the det workload: det.hpp on adoubles, taped once.
#include <adolc/adolc.h>

#include "det.hpp"

void adolc_det_tape(int tag, const std::vector<double> &a, std::size_t m) {
	trace_on(tag);
	std::vector<adouble> x(a.size());
	for (size_t i = 0; i < a.size(); i++) x[i] <<= a[i];
	adouble y = det_by_minor(x, m);
	double out;
	y >>= out;
	trace_off();
}

void adolc_det_grad(int tag, const std::vector<double> &a, std::vector<double> &g) {
	gradient(tag, (int)a.size(), a.data(), g.data());
}
