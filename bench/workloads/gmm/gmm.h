/* GMM objective: log-likelihood of a Gaussian mixture with a Wishart prior on
 * the precision matrices, as defined by ADBench and corrected by GradBench
 * (the prior enters with its sign, as a log-density). Written once over REAL:
 * double in C (gozyme, the primal), adouble in C++ (ADOL-C).
 * Parameters p = [alpha (k), mu (k*d), q (k*d), l (k*d(d-1)/2)]: weights,
 * means, logs of the precision factors' diagonals, and their strictly lower
 * triangular parts, column by column. */
#ifndef GMM_H
#define GMM_H

typedef struct {
	int d, k, n;
	const double *x; /* n*d points */
	double gamma;    /* Wishart prior */
	int m;
} Gmm;

static inline int gmm_lsz(int d) { return d * (d - 1) / 2; }
static inline int gmm_params(const Gmm *g) { return g->k * (1 + 2 * g->d + gmm_lsz(g->d)); }

static REAL gmm_logsumexp(int n, const REAL *x) {
	REAL mx = x[0];
	for (int i = 1; i < n; i++) mx = fmax(mx, x[i]);
	REAL s = 0;
	for (int i = 0; i < n; i++) s += exp(x[i] - mx);
	return log(s) + mx;
}

static REAL gmm_sqnorm(int n, const REAL *x) {
	REAL s = 0;
	for (int i = 0; i < n; i++) s += x[i] * x[i];
	return s;
}

/* log of the multivariate gamma function Gamma_p(a). */
static double gmm_log_gamma_distrib(double a, int p) {
	double s = 0.25 * p * (p - 1) * log(3.14159265358979323846);
	for (int j = 1; j <= p; j++) s += lgamma(a + 0.5 * (1 - j));
	return s;
}

static REAL gmm_objective(const Gmm *g, const REAL *p) {
	int d = g->d, k = g->k, n = g->n, lsz = gmm_lsz(d);
	const REAL *alpha = p, *mu = p + k, *q = mu + k * d, *l = q + k * d;
	REAL *qdiag = ALLOC(k * d), *sumq = ALLOC(k), *xc = ALLOC(d), *qx = ALLOC(d), *main_term = ALLOC(k);
	for (int i = 0; i < k * d; i++) qdiag[i] = exp(q[i]);
	for (int ik = 0; ik < k; ik++) {
		sumq[ik] = 0;
		for (int j = 0; j < d; j++) sumq[ik] += q[ik * d + j];
	}
	REAL slse = 0;
	for (int ix = 0; ix < n; ix++) {
		for (int ik = 0; ik < k; ik++) {
			for (int j = 0; j < d; j++) xc[j] = g->x[ix * d + j] - mu[ik * d + j];
			/* qx = Q xc, Q lower triangular: diagonal qdiag, below it l. */
			for (int j = 0; j < d; j++) qx[j] = qdiag[ik * d + j] * xc[j];
			int li = ik * lsz;
			for (int i = 0; i < d; i++)
				for (int j = i + 1; j < d; j++) qx[j] += l[li++] * xc[i];
			main_term[ik] = alpha[ik] + sumq[ik] - 0.5 * gmm_sqnorm(d, qx);
		}
		slse += gmm_logsumexp(k, main_term);
	}
	REAL err = -n * d * 0.5 * log(2 * 3.14159265358979323846) + slse - n * gmm_logsumexp(k, alpha);
	/* Wishart prior (log-density) on each precision matrix Q Q^T. */
	int dof = d + g->m + 1;
	double C = dof * d * (log(g->gamma) - 0.5 * log(2.0)) - gmm_log_gamma_distrib(0.5 * dof, d);
	REAL prior = 0;
	for (int ik = 0; ik < k; ik++) {
		REAL frobenius = gmm_sqnorm(d, &qdiag[ik * d]) + gmm_sqnorm(lsz, &l[ik * lsz]);
		prior += 0.5 * g->gamma * g->gamma * frobenius - g->m * sumq[ik];
	}
	err += -prior + k * C;
	FREE(qdiag); FREE(sumq); FREE(xc); FREE(qx); FREE(main_term);
	return err;
}

/* The ADOL-C version (adolc.cpp), declared once for both languages. */
#ifdef __cplusplus
extern "C" {
#endif
void adolc_gmm_tape(int tag, const Gmm *g, const double *p);
void adolc_gmm_grad(int tag, const Gmm *g, const double *p, double *grad);
#ifdef __cplusplus
}
#endif
#endif
