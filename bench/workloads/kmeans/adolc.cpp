// ADOL-C version of the kmeans workload: kmeans.hpp on adoubles, taped once;
// the gradient by fos_reverse, H times ones by hess_vec.
#include <adolc/adolc.h>

#include "kmeans.hpp"

void adolc_kmeans_tape(int tag, const KMeansInput &in, const std::vector<double> &c) {
	trace_on(tag);
	std::vector<adouble> a(c.size());
	for (size_t i = 0; i < c.size(); i++) a[i] <<= c[i];
	adouble y = kmeans_cost(in, a);
	double out;
	y >>= out;
	trace_off();
}

// adolc_kmeans_dir writes J then H times ones (2 x c.size()) to out.
void adolc_kmeans_dir(int tag, const std::vector<double> &c, std::vector<double> &out) {
	int n = (int)c.size();
	std::vector<double> ones(n, 1.0);
	gradient(tag, n, c.data(), out.data());
	hess_vec(tag, n, const_cast<double *>(c.data()), ones.data(), out.data() + n);
}
