// A client-style ODE gradient (adinline_test.go): a generic fourth-order
// Runge-Kutta template taking the right-hand side as a lambda, called once
// from the differentiated template, so both instantiations are linkonce_odr
// and the integrator's one reference is that call (singleUseInlines forces
// it inline). y_0' = x_0, y_i' = x_i y_{i-1} - sin(y_i) / 4, y(0) = 0.
// Prints the largest relative error of the gradient of y_{n-1}(1) against
// central differences.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern "C" void __enzyme_autodiff(void *, ...);
extern "C" int enzyme_dup, enzyme_const;

template <typename F> void runge_kutta(F f, double *y, int n, double tf, int s) {
	double *k1 = (double *)malloc(n * sizeof(double)), *k2 = (double *)malloc(n * sizeof(double)),
	       *k3 = (double *)malloc(n * sizeof(double)), *k4 = (double *)malloc(n * sizeof(double)),
	       *tmp = (double *)malloc(n * sizeof(double));
	double h = tf / s;
	for (int step = 0; step < s; step++) {
		f(y, k1);
		for (int i = 0; i < n; i++) tmp[i] = y[i] + h / 2 * k1[i];
		f(tmp, k2);
		for (int i = 0; i < n; i++) tmp[i] = y[i] + h / 2 * k2[i];
		f(tmp, k3);
		for (int i = 0; i < n; i++) tmp[i] = y[i] + h * k3[i];
		f(tmp, k4);
		for (int i = 0; i < n; i++) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
	}
	free(k1);
	free(k2);
	free(k3);
	free(k4);
	free(tmp);
}

template <typename T> T ode_last(const T *x, int n, int s) {
	T *y = (T *)calloc(n, sizeof(T));
	runge_kutta(
		[x, n](const T *y, T *dy) {
			dy[0] = x[0];
			for (int i = 1; i < n; i++) dy[i] = x[i] * y[i - 1] - sin(y[i]) / 4;
		},
		y, n, 1.0, s);
	T last = y[n - 1];
	free(y);
	return last;
}

int main() {
	enum { N = 6, S = 20 };
	double x[N], dx[N] = {0};
	for (int i = 0; i < N; i++) x[i] = 0.5 + 0.3 * sin(1.3 * i);
	__enzyme_autodiff((void *)ode_last<double>, enzyme_dup, x, dx, enzyme_const, (int)N, enzyme_const, (int)S);
	double err = 0;
	for (int i = 0; i < N; i++) {
		double h = 1e-6, save = x[i];
		x[i] = save + h;
		double up = ode_last(x, N, S);
		x[i] = save - h;
		double down = ode_last(x, N, S);
		x[i] = save;
		double fd = (up - down) / (2 * h);
		err = fmax(err, fabs(dx[i] - fd) / fmax(1, fabs(fd)));
	}
	printf("%.3g\n", err);
	return 0;
}
