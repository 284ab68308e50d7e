/* The seed's norm example, out[i] = in[i] / mag(in, n) with mag in mag.c:
 * linear in n only when the optimizer hoists mag out of the loop (package
 * preopt infers the argmemonly LICM needs). Gradient: the vector-Jacobian
 * product with a fixed d_out. */
#include "../harness.h"

double mag(const double *x, int n);
void __enzyme_autodiff(void *, ...);
double adolc_norm_tape(int tag, const double *in, int n);
void adolc_norm_vjp(int tag, const double *in, const double *dout, double *din, int n);

void norm(double *restrict out, const double *restrict in, int n) {
	for (int i = 0; i < n; i++) out[i] = in[i] / mag(in, n);
}

typedef struct {
	int n, tag;
	double *in, *out, *dout, *din, *want, *work;
} Case;

/* hand: d_in = d_out / r - in (in . d_out) / r^3. */
static void hand(void *a) {
	Case *c = a;
	double r2 = 0, dot = 0;
	for (int i = 0; i < c->n; i++) { r2 += c->in[i] * c->in[i]; dot += c->in[i] * c->dout[i]; }
	double r = sqrt(r2), s = dot / (r2 * r);
	for (int i = 0; i < c->n; i++) c->din[i] = c->dout[i] / r - c->in[i] * s;
}

static void primal(void *a) { Case *c = a; norm(c->out, c->in, c->n); bench_sink = c->out[0]; }

static void gozyme(void *a) {
	Case *c = a;
	memset(c->din, 0, c->n * sizeof(double));
	memcpy(c->work, c->dout, c->n * sizeof(double)); /* the reverse pass consumes d_out */
	__enzyme_autodiff((void *)norm, enzyme_dup, c->out, c->work, enzyme_dup, c->in, c->din, enzyme_const, c->n);
}

static void adolc_tape(void *a) { Case *c = a; adolc_norm_tape(c->tag, c->in, c->n); }
static void adolc(void *a) { Case *c = a; adolc_norm_vjp(c->tag, c->in, c->dout, c->din, c->n); }

/* dot(d_out, norm(p)): the scalar whose gradient is the product above. */
static double projected(void *a, const double *p) {
	Case *c = a;
	norm(c->out, p, c->n);
	double s = 0;
	for (int i = 0; i < c->n; i++) s += c->dout[i] * c->out[i];
	return s;
}
static void fd(void *a) { Case *c = a; fd_gradient(projected, c, c->in, c->n, c->din); }

int main(int argc, char **argv) {
	int testing = argc > 1 && strcmp(argv[1], "test") == 0, ok = 1;
	harness_init(argc, argv);
	int sizes[] = {1000, 10000, 100000};
	for (int s = 0; s < (testing ? 1 : 3); s++) {
		int n = sizes[s];
		/* Before optimization the gradient is O(n^2): 1e5 would take minutes. */
		if (only_gozyme && n > 10000) continue;
		Case c = {n, s + 1};
		double **bufs[] = {&c.in, &c.out, &c.dout, &c.din, &c.want, &c.work};
		for (int b = 0; b < 6; b++) *bufs[b] = calloc(n, sizeof(double));
		for (int i = 0; i < n; i++) { c.in[i] = uniform() + 0.1; c.dout[i] = uniform(); }
		char name[64];
		snprintf(name, sizeof name, "norm(n=%d)", n);
		hand(&c);
		memcpy(c.want, c.din, n * sizeof(double));
		/* ADOL-C tapes the loop as written: n calls of mag, O(n^2) operations. */
		int small = n <= 1000;
		Methods m = {primal, gozyme, hand, small ? adolc_tape : NULL, small ? adolc : NULL, small ? fd : NULL};
		ok &= run_case(name, &c, &m, c.din, c.want, n, !testing);
		for (int b = 0; b < 6; b++) free(*bufs[b]);
	}
	if (testing) puts(ok ? "OK" : "FAILED");
	return !ok;
}
