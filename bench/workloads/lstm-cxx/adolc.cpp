// ADOL-C version of the lstm-cxx workload: lstm.hpp on adoubles.
#include <adolc/adolc.h>

#include "lstm.hpp"

void adolc_lstm_tape(int tag, const LSTMInput &in, const std::vector<double> &main_params, const std::vector<double> &extra) {
	trace_on(tag);
	std::vector<adouble> a(main_params.size()), e(extra.size());
	for (size_t i = 0; i < a.size(); i++) a[i] <<= main_params[i];
	for (size_t i = 0; i < e.size(); i++) e[i] <<= extra[i];
	adouble y = lstm_objective(in, a, e);
	double out;
	y >>= out;
	trace_off();
}

void adolc_lstm_grad(int tag, const std::vector<double> &params, std::vector<double> &grad) {
	gradient(tag, (int)params.size(), params.data(), grad.data());
}
