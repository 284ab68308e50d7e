/* A gradient through a pair of loops FuseLoops fuses (fuse_test.go): the
 * GMM objective's inner step, summed over points and components. Prints
 * the largest error of the gradient against central differences. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double objective(const double *p, const double *x, int n, int k, int d) {
	const double *mu = p, *q = p + k * d;
	double *xc = malloc(d * sizeof *xc), *qx = malloc(d * sizeof *qx);
	double s = 0;
	for (int i = 0; i < n; i++)
		for (int c = 0; c < k; c++) {
			for (int j = 0; j < d; j++) xc[j] = x[i * d + j] - mu[c * d + j];
			for (int j = 0; j < d; j++) qx[j] = exp(q[c * d + j]) * xc[j];
			double t = 0;
			for (int j = 0; j < d; j++) t += qx[j] * qx[j];
			s += sin(t) + t;
		}
	free(xc);
	free(qx);
	return s;
}

int main(void) {
	enum { N = 4, K = 3, D = 3, P = 2 * K * D };
	double p[P], dp[P] = {0}, x[N * D];
	for (int i = 0; i < P; i++) p[i] = 0.1 * sin(1.7 * i) + 0.05 * i;
	for (int i = 0; i < N * D; i++) x[i] = cos(0.9 * i);
	__enzyme_autodiff((void *)objective, enzyme_dup, p, dp, enzyme_const, x, enzyme_const, N, enzyme_const, K,
	                  enzyme_const, D);
	double err = 0;
	for (int i = 0; i < P; i++) {
		double h = 1e-6, save = p[i];
		p[i] = save + h;
		double up = objective(p, x, N, K, D);
		p[i] = save - h;
		double down = objective(p, x, N, K, D);
		p[i] = save;
		double fd = (up - down) / (2 * h);
		err = fmax(err, fabs(dp[i] - fd) / fmax(1, fabs(fd)));
	}
	printf("%.3g\n", err);
	return 0;
}
