#include <math.h>
#include "model.h"

static double act(double v) { return v * v; }  /* not lib's act */

double loss(const double *w, int n) {
	double x[16];
	for (int i = 0; i < n; i++) x[i] = 1.0 + 0.1 * i;
	return act(model(w, x, n)) + 0.01 * mag(w, n);
}
