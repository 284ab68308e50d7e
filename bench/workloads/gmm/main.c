/* GMM workload (ADBench/GradBench): n = 1000 points, (d, k) in (2,5),
 * (10,25), (20,50), (64,10); gradient with respect to all parameters. */
#include "../harness.h"
#define REAL double
#define ALLOC(n) ((double *)malloc((n) * sizeof(double)))
#define FREE(p) free(p)
#include "gmm.h"

double __enzyme_autodiff(void *, ...);

/* gmm_hand is the gradient of gmm_objective written by hand: per point, the
 * mixture weights (softmax of the main terms), then each component's
 * adjoint through Q (x - mu). */
static void gmm_hand(const Gmm *g, const double *p, double *grad) {
	int d = g->d, k = g->k, n = g->n, lsz = gmm_lsz(d);
	const double *alpha = p, *mu = p + k, *q = mu + k * d, *l = q + k * d;
	double *dalpha = grad, *dmu = grad + k, *dq = dmu + k * d, *dl = dq + k * d;
	memset(grad, 0, gmm_params(g) * sizeof(double));
	double *qdiag = malloc(k * d * sizeof(double)), *sumq = calloc(k, sizeof(double));
	double *xc = malloc(k * d * sizeof(double)), *qx = malloc(k * d * sizeof(double));
	double *w = malloc(k * sizeof(double)), *wsum = calloc(k, sizeof(double)), *gq = malloc(d * sizeof(double));
	for (int i = 0; i < k * d; i++) qdiag[i] = exp(q[i]);
	for (int ik = 0; ik < k; ik++)
		for (int j = 0; j < d; j++) sumq[ik] += q[ik * d + j];
	for (int ix = 0; ix < n; ix++) {
		const double *x = g->x + ix * d;
		double mx = -INFINITY;
		for (int ik = 0; ik < k; ik++) {
			double *c = xc + ik * d, *y = qx + ik * d;
			const double *L = l + ik * lsz, *D = qdiag + ik * d;
			for (int j = 0; j < d; j++) { c[j] = x[j] - mu[ik * d + j]; y[j] = D[j] * c[j]; }
			for (int i = 0, li = 0; i < d; i++)
				for (int j = i + 1; j < d; j++) y[j] += L[li++] * c[i];
			double s = 0;
			for (int j = 0; j < d; j++) s += y[j] * y[j];
			w[ik] = alpha[ik] + sumq[ik] - 0.5 * s;
			mx = fmax(mx, w[ik]);
		}
		double z = 0;
		for (int ik = 0; ik < k; ik++) { w[ik] = exp(w[ik] - mx); z += w[ik]; }
		for (int ik = 0; ik < k; ik++) {
			double wk = w[ik] / z;
			const double *c = xc + ik * d, *y = qx + ik * d, *L = l + ik * lsz, *D = qdiag + ik * d;
			double *dL = dl + ik * lsz, *dQ = dq + ik * d, *dM = dmu + ik * d;
			wsum[ik] += wk;
			/* main = ... - |y|^2 / 2, so d main / d y = -y. */
			for (int j = 0; j < d; j++) { gq[j] = -wk * y[j]; dQ[j] += gq[j] * c[j] * D[j]; dM[j] -= D[j] * gq[j]; }
			for (int i = 0, li = 0; i < d; i++)
				for (int j = i + 1; j < d; j++, li++) { dL[li] += gq[j] * c[i]; dM[i] -= L[li] * gq[j]; }
		}
	}
	double ma = -INFINITY, za = 0;
	for (int ik = 0; ik < k; ik++) ma = fmax(ma, alpha[ik]);
	for (int ik = 0; ik < k; ik++) za += exp(alpha[ik] - ma);
	double gg = g->gamma * g->gamma;
	for (int ik = 0; ik < k; ik++) {
		dalpha[ik] = wsum[ik] - n * exp(alpha[ik] - ma) / za;
		for (int j = 0; j < d; j++) dq[ik * d + j] += wsum[ik] - gg * qdiag[ik * d + j] * qdiag[ik * d + j] + g->m;
		for (int i = 0; i < lsz; i++) dl[ik * lsz + i] -= gg * l[ik * lsz + i];
	}
	free(qdiag); free(sumq); free(xc); free(qx); free(w); free(wsum); free(gq);
}

typedef struct {
	Gmm g;
	int np, tag;
	double *p, *grad, *want;
} Case;

static void primal(void *a) { Case *c = a; bench_sink = gmm_objective(&c->g, c->p); }
static void hand(void *a) { Case *c = a; gmm_hand(&c->g, c->p, c->grad); }
static void gozyme(void *a) {
	Case *c = a;
	memset(c->grad, 0, c->np * sizeof(double));
	__enzyme_autodiff((void *)gmm_objective, enzyme_const, &c->g, enzyme_dup, c->p, c->grad);
}
static void adolc_tape(void *a) { Case *c = a; adolc_gmm_tape(c->tag, &c->g, c->p); }
static void adolc(void *a) { Case *c = a; adolc_gmm_grad(c->tag, &c->g, c->p, c->grad); }
static double value(void *a, const double *p) { Case *c = a; return gmm_objective(&c->g, p); }
static void fd(void *a) { Case *c = a; fd_gradient(value, c, c->p, c->np, c->grad); }

/* run checks (and when timed, times) one case; FD only when small. */
static int run(int d, int k, int n, int m, int tag, int timed) {
	Case c = {{d, k, n, 0, 1.0, m}, 0, tag};
	c.np = gmm_params(&c.g);
	double *x = malloc(n * d * sizeof(double));
	for (int i = 0; i < n * d; i++) x[i] = uniform();
	c.g.x = x;
	c.p = malloc(c.np * sizeof(double));
	for (int i = 0; i < c.np; i++) c.p[i] = i < k * (1 + d) ? uniform() : 0.1 * uniform();
	c.grad = malloc(c.np * sizeof(double));
	c.want = malloc(c.np * sizeof(double));
	gmm_hand(&c.g, c.p, c.want);
	char name[64];
	snprintf(name, sizeof name, "gmm(d=%d,k=%d)", d, k);
	Methods ms = {primal, gozyme, hand, adolc_tape, adolc, c.np <= 100 || !timed ? fd : NULL};
	int ok = run_case(name, &c, &ms, c.grad, c.want, c.np, timed);
	free(x); free(c.p); free(c.grad); free(c.want);
	return ok;
}

int main(int argc, char **argv) {
	if (argc > 1 && strcmp(argv[1], "test") == 0) {
		int ok = run(3, 4, 20, 3, 1, 0) & run(5, 2, 7, 0, 2, 0);
		puts(ok ? "OK" : "FAILED");
		return !ok;
	}
	harness_init(argc, argv);
	int dk[][2] = {{2, 5}, {10, 25}, {20, 50}, {64, 10}};
	for (int i = 0; i < 4; i++) run(dk[i][0], dk[i][1], 1000, 0, i + 1, 1);
	return 0;
}
