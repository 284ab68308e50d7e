/* qformKernel is GMM's shape: per point i < P and component k < K (2
 * each, set at run time: not unrolled), xc = p - mu,
 * qx = q xc (caching xc, which the next pair overwrites) and the squared
 * norm of qx, over d = D components. Vectorized, the qx loop's scalar
 * remainder is entered from the vector loop's middle block (n.vec != d)
 * or where the minimum-iterations check skips the vector loop.
 * (qformKernel in entrypath_test.go) */
static int D, P, K;
__attribute__((noinline)) double qform(double *x, int n) {
	int d = D, w = d > 0 ? d : 0, np = P, nk = K;
	double e = 0, xc[16], qx[16];
	for (int i = 0; i < np; i++)
		for (int k = 0; k < nk; k++) {
			const double *mu = x + k * w, *q = x + (2 + k) * w, *p = x + (4 + i) * w;
			for (int j = 0; j < d; j++) xc[j] = p[j] - mu[j];
			for (int j = 0; j < d; j++) qx[j] = q[j] * xc[j];
			double s = 0;
			for (int j = 0; j < d; j++) s += qx[j] * qx[j];
			e += exp(-0.5 * s) * x[n - 1];
		}
	return e;
}
