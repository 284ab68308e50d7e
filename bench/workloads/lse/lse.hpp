// Log-sum-exp (GradBench's lse): y(x) = log(sum_i exp(x_i)), computed
// stably as max + log(sum exp(x_i - max)); the gradient is the softmax of x.
// Written as client code writes it: a template over the scalar type on a
// std::vector, the maximum by std::max_element.
#ifndef LSE_HPP
#define LSE_HPP
#include <algorithm>
#include <cmath>
#include <vector>

template <typename T> T logsumexp(const std::vector<T> &x) {
	using std::exp;
	using std::log;
	T mx = *std::max_element(x.begin(), x.end());
	T sum = 0;
	for (const T &v : x) sum += exp(v - mx);
	return mx + log(sum);
}

// The ADOL-C version (adolc.cpp): tape at x, then gradients on the tape.
void adolc_lse_tape(int tag, const std::vector<double> &x);
void adolc_lse_grad(int tag, const std::vector<double> &x, std::vector<double> &g);
#endif
