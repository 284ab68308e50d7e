// An ODE solution (GradBench's ode, from cmpad's an_ode): y(0) = 0 and
//   y_0' = x_0,   y_i' = x_i y_{i-1}  (i > 0),
// integrated to t = 2 by s steps of the classical fourth-order Runge-Kutta
// method; the gradient of the last component of y(2) with respect to x.
// Client style: a generic Runge-Kutta template taking the right-hand side as
// a lambda, std::vector states.
#ifndef ODE_HPP
#define ODE_HPP
#include <cstddef>
#include <vector>

// runge_kutta advances y from t = 0 to tf in s steps of RK4 for y' = f(y),
// f(y, dy) writing the derivative.
template <typename T, typename F> void runge_kutta(F f, std::vector<T> &y, double tf, int s) {
	std::size_t n = y.size();
	std::vector<T> k1(n), k2(n), k3(n), k4(n), tmp(n);
	double h = tf / s;
	for (int step = 0; step < s; step++) {
		f(y, k1);
		for (std::size_t i = 0; i < n; i++) tmp[i] = y[i] + h / 2 * k1[i];
		f(tmp, k2);
		for (std::size_t i = 0; i < n; i++) tmp[i] = y[i] + h / 2 * k2[i];
		f(tmp, k3);
		for (std::size_t i = 0; i < n; i++) tmp[i] = y[i] + h * k3[i];
		f(tmp, k4);
		for (std::size_t i = 0; i < n; i++) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
	}
}

template <typename T> T ode_last(const std::vector<T> &x, int s) {
	std::size_t n = x.size();
	std::vector<T> y(n, T(0));
	runge_kutta(
		[&x, n](const std::vector<T> &y, std::vector<T> &dy) {
			dy[0] = x[0];
			for (std::size_t i = 1; i < n; i++) dy[i] = x[i] * y[i - 1];
		},
		y, 2.0, s);
	return y[n - 1];
}

// The ADOL-C version (adolc.cpp): tape at x, then gradients on the tape.
void adolc_ode_tape(int tag, const std::vector<double> &x, int s);
void adolc_ode_grad(int tag, const std::vector<double> &x, std::vector<double> &g);
#endif
