#include <math.h>
#include "quant.h"

int quantize_grad_calls;

double quantize(double x) { return round(x * 4) / 4; }

/* Straight through: the incoming adjoint passes unchanged. */
double quantize_grad(double x, double d_ret) {
	(void)x;
	quantize_grad_calls++;
	return d_ret;
}
