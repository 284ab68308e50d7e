#include <math.h>
#include "loss.h"

/* A function with a custom forward-mode derivative (Enzyme's registration
 * global), used by energy(); soft_fwd_calls counts the rule's calls. */
int soft_fwd_calls;
__attribute__((noinline)) double soft(double x) { return log1p(x * x); }
double soft_fwd(double x, double dx) {
	soft_fwd_calls++;
	return 2 * x * dx / (1 + x * x);
}
void *__enzyme_register_derivative_soft[2] = {(void *)soft, (void *)soft_fwd};

double energy(double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += soft(x[i]) * (i + 1);
	return s;
}
