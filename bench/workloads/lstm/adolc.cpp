// ADOL-C version of the LSTM workload: lstm.h on adoubles, taped once.
#include <adolc/adolc.h>
#include <cmath>
#include <vector>
#define REAL adouble
#define ALLOC(n) (new adouble[n])
#define FREE(p) (delete[] (p))
#include "lstm.h"

extern "C" void adolc_lstm_tape(int tag, const Lstm *m, const double *state0, const double *p) {
	int np = lstm_params(m);
	trace_on(tag);
	std::vector<adouble> a(np);
	for (int i = 0; i < np; i++) a[i] <<= p[i];
	adouble y = lstm_objective(m, state0, a.data());
	double out;
	y >>= out;
	trace_off();
}

extern "C" void adolc_lstm_grad(int tag, const Lstm *m, const double *p, double *grad) {
	gradient(tag, lstm_params(m), p, grad);
}
