// Linear least squares (GradBench's llsq, from cmpad's llsq_obj): fit a
// polynomial with m coefficients x to the sign function on n points,
//   y(x) = 1/2 sum_i (s_i - sum_j x_j t_i^j)^2,  t_i = -1 + 2i/(n-1),  s_i = sign(t_i),
// gradient with respect to x. Client style: a template over the scalar type,
// std::vector, the points and signs as lambdas.
#ifndef LLSQ_HPP
#define LLSQ_HPP
#include <cstddef>
#include <vector>

template <typename T> T llsq_objective(const std::vector<T> &x, std::size_t n) {
	auto t = [n](std::size_t i) { return -1 + double(i) * 2 / double(n - 1); };
	auto sign = [](double v) { return double((v > 0) - (v < 0)); };
	T sum = 0;
	for (std::size_t i = 0; i < n; i++) {
		double ti = t(i), power = 1;
		T residual = sign(ti);
		for (std::size_t j = 0; j < x.size(); j++) {
			residual -= x[j] * power;
			power *= ti;
		}
		sum += residual * residual;
	}
	return sum / 2;
}

// The ADOL-C version (adolc.cpp): tape at x, then gradients on the tape.
void adolc_llsq_tape(int tag, const std::vector<double> &x, std::size_t n);
void adolc_llsq_grad(int tag, const std::vector<double> &x, std::vector<double> &g);
#endif
