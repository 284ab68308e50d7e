#include <math.h>
#include <stdio.h>
double lib_grad(double x);
double check_grad(double x);
int main(void) {
	int failures = 0;
	for (double x = -1; x <= 1.5; x += 0.5) {
		double a = lib_grad(x), b = check_grad(x);
		double wa = (1 + x) * exp(x), wb = cos(x) * x + sin(x);
		printf("multi %g %.17g %.17g %.17g %.17g\n", x, a, wa, b, wb);
		if (fabs(a - wa) > 1e-12 * fmax(1, fabs(wa)) || fabs(b - wb) > 1e-12 * fmax(1, fabs(wb))) failures++;
	}
	printf("failures %d\n", failures);
	return failures != 0;
}
