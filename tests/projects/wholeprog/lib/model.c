#include <math.h>
#include "model.h"

double model_scale = 0.5;

/* Same name as a static function in loss/loss.c: each TU keeps its own. */
static double act(double v) { return tanh(v); }

double model(const double *w, const double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += act(w[i] * x[i]) * model_scale;
	return s;
}
