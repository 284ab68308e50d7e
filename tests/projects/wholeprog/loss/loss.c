#include <math.h>
#include "model.h"

static double act(double v) { return v * v; }  /* not lib's act */

double loss(const double *w, int n) {
	double x[16];
	for (int i = 0; i < n; i++) x[i] = 1.0 + 0.1 * i;
	return act(model(w, x, n)) + 0.01 * mag(w, n);
}

/* A second object with its own Enzyme call, in the same group as main's:
   d/dw0 of loss, by the library's own gradient. */
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double loss_dw0(const double *w, int n) {
	double dw[16] = {0};
	__enzyme_autodiff((void *)loss, enzyme_dup, w, dw, enzyme_const, n);
	return dw[0];
}
