#include <math.h>
#include "loss.h"

/* An extended Rosenbrock function with a soft penalty. */
double loss(double *x, int n) {
	double s = 0;
	for (int i = 0; i + 1 < n; i++) {
		double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
		s += 100 * a * a + b * b + log1p(x[i] * x[i]);
	}
	return s;
}
