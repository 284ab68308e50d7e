#include "model.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

/* Internal and written by the rewritten gradient: one instance, which
   gradient_calls (native code the roots do not reach) reads. */
static int calls;

void gradient(const double *x, double *dx, int n) {
	calls++;
	__enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, n);
}

int gradient_calls(void) { return calls; }
