#include <math.h>
#include <stdio.h>
#include "model.h"

#define N 6

/* Checks the gradient against central differences of energy (native
   code), and that the counters the rewritten code writes are the ones the
   native code reads. Prints "failures K". */
int main(void) {
	double x[N], dx[N] = {0};
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.2 * i;
	printf("unrelated %.6f\n", unrelated_work(40));
	gradient(x, dx, N);
	int failures = 0;
	const double h = 1e-6;
	for (int i = 0; i < N; i++) {
		double xp[N], xm[N];
		for (int j = 0; j < N; j++) xp[j] = xm[j] = x[j];
		xp[i] += h;
		xm[i] -= h;
		double fd = (energy(xp, N) - energy(xm, N)) / (2 * h);
		int bad = fabs(fd - dx[i]) > 1e-6 * (1 + fabs(fd));
		failures += bad;
		printf("grad %d %.12f %.12f%s\n", i, dx[i], fd, bad ? " WRONG" : "");
	}
	printf("gradient_calls %d\n", gradient_calls());
	printf("energy_calls %d\n", energy_calls);
	printf("failures %d\n", failures);
	return failures != 0;
}
