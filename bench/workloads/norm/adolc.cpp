// ADOL-C version of the norm workload: the same loop on adoubles, taped once.
#include <adolc/adolc.h>
#include <vector>

static adouble mag(const adouble *x, int n) {
	adouble s = 0;
	for (int i = 0; i < n; i++) s += x[i] * x[i];
	return sqrt(s);
}

extern "C" double adolc_norm_tape(int tag, const double *in, int n) {
	trace_on(tag);
	std::vector<adouble> x(n), y(n);
	for (int i = 0; i < n; i++) x[i] <<= in[i];
	for (int i = 0; i < n; i++) y[i] = x[i] / mag(x.data(), n);
	double out;
	for (int i = 0; i < n; i++) y[i] >>= out;
	trace_off();
	return out;
}

extern "C" void adolc_norm_vjp(int tag, const double *in, const double *dout, double *din, int n) {
	static std::vector<double> out;
	out.resize(n);
	zos_forward(tag, n, n, 1, in, out.data());
	fos_reverse(tag, n, n, const_cast<double *>(dout), din);
}
