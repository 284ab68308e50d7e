// GMM objective (ADBench, with GradBench's corrections: the Wishart prior
// enters as a log-density) written as C++ client code writes it: an input
// struct of std::vectors, templates over the scalar type, small helpers and
// lambdas, std::vector temporaries. The parameters are ADBench's three
// arrays: alphas (k), means (k x d) and icf (k x (d + d(d-1)/2): per
// component the logs of the precision factor's diagonal, then its strictly
// lower triangle column by column).
#ifndef GMM_CXX_HPP
#define GMM_CXX_HPP
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

struct Wishart {
	double gamma;
	int m;
};

struct GMMInput {
	int d, k, n;
	std::vector<double> x; // n x d
	Wishart wishart;
};

inline int icf_size(int d) { return d * (d + 1) / 2; }

template <typename T> T arr_max(const T *x, int n) {
	T m = x[0];
	for (int i = 1; i < n; i++)
		if (m < x[i]) m = x[i];
	return m;
}

template <typename T> T sqnorm(const T *x, int n) {
	T s = 0;
	for (int i = 0; i < n; i++) s += x[i] * x[i];
	return s;
}

template <typename T> T logsumexp(const T *x, int n) {
	using std::exp;
	using std::log;
	T mx = arr_max(x, n), s = 0;
	for (int i = 0; i < n; i++) s += exp(x[i] - mx);
	return log(s) + mx;
}

inline double log_gamma_distrib(double a, int p) {
	double s = 0.25 * p * (p - 1) * std::log(M_PI);
	for (int j = 1; j <= p; j++) s += std::lgamma(a + 0.5 * (1 - j));
	return s;
}

// Qtimesx writes L x for the lower-triangular L with diagonal qdiag and
// strictly lower part ltri (column by column).
template <typename T> void Qtimesx(int d, const T *qdiag, const T *ltri, const T *x, T *out) {
	for (int i = 0; i < d; i++) out[i] = qdiag[i] * x[i];
	int li = 0;
	for (int i = 0; i < d; i++)
		for (int j = i + 1; j < d; j++) out[j] += ltri[li++] * x[i];
}

template <typename T>
T log_wishart_prior(int d, int k, const Wishart &w, const std::vector<T> &sum_qs, const std::vector<T> &qdiags,
                    const std::vector<T> &icf) {
	int n = d + w.m + 1, isz = icf_size(d);
	double C = n * d * (std::log(w.gamma) - 0.5 * std::log(2.0)) - log_gamma_distrib(0.5 * n, d);
	T out = 0;
	for (int ik = 0; ik < k; ik++) {
		T frobenius = sqnorm(&qdiags[ik * d], d) + sqnorm(&icf[ik * isz + d], isz - d);
		out += 0.5 * w.gamma * w.gamma * frobenius - w.m * sum_qs[ik];
	}
	return out - k * C;
}

template <typename T>
T gmm_objective(const GMMInput &in, const std::vector<T> &alphas, const std::vector<T> &means, const std::vector<T> &icf) {
	using std::exp;
	using std::log;
	const int d = in.d, k = in.k, n = in.n, isz = icf_size(d);
	const double CONSTANT = -n * d * 0.5 * std::log(2 * M_PI);
	std::vector<T> qdiags(d * k), sum_qs(k), xcentered(d), Qxcentered(d), main_term(k);
	auto preprocess = [&]() {
		for (int ik = 0; ik < k; ik++) {
			sum_qs[ik] = 0;
			for (int id = 0; id < d; id++) {
				T q = icf[ik * isz + id];
				sum_qs[ik] += q;
				qdiags[ik * d + id] = exp(q);
			}
		}
	};
	preprocess();
	T slse = 0;
	for (int ix = 0; ix < n; ix++) {
		for (int ik = 0; ik < k; ik++) {
			for (int id = 0; id < d; id++) xcentered[id] = in.x[ix * d + id] - means[ik * d + id];
			Qtimesx(d, &qdiags[ik * d], &icf[ik * isz + d], xcentered.data(), Qxcentered.data());
			main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm(Qxcentered.data(), d);
		}
		slse += logsumexp(main_term.data(), k);
	}
	T lse_alphas = logsumexp(alphas.data(), k);
	return CONSTANT + slse - n * lse_alphas - log_wishart_prior(d, k, in.wishart, sum_qs, qdiags, icf);
}

// The ADOL-C version (adolc.cpp): tape at the parameters, then gradients on
// the tape (grad: alphas, means, icf concatenated).
void adolc_gmm_tape(int tag, const GMMInput &in, const std::vector<double> &alphas, const std::vector<double> &means,
                    const std::vector<double> &icf);
void adolc_gmm_grad(int tag, const std::vector<double> &params, std::vector<double> &grad);
#endif
