/* LSTM workload (ADBench): 2 and 4 layers, c = 1024 characters, b = 14. */
#include "../harness.h"
#define REAL double
#define ALLOC(n) ((double *)malloc((n) * sizeof(double)))
#define FREE(p) free(p)
#include "lstm.h"

double __enzyme_autodiff(void *, ...);

/* Per step and layer, what the hand-written reverse pass needs. */
enum { X, HPREV, CPREV, F, I, O, G, TH, NSAVE };

/* lstm_hand is the gradient of lstm_objective written by hand: the forward
 * pass keeps each cell's input, previous state, gates and tanh(cell); the
 * reverse pass runs back through time carrying d hidden and d cell of every
 * layer. */
static void lstm_hand(const Lstm *m, const double *state0, const double *p, double *grad) {
	int l = m->l, c = m->c, b = m->b, T = c - 1;
	const double *w = p, *w2 = p + l * 8 * b;
	double *dw = grad, *dw2 = grad + l * 8 * b;
	memset(grad, 0, lstm_params(m) * sizeof(double));
	double *save = malloc((size_t)T * l * NSAVE * b * sizeof(double));
	double *htop = malloc((size_t)T * b * sizeof(double)), *ypred = malloc((size_t)T * b * sizeof(double));
	double *state = malloc(2 * l * b * sizeof(double)), *x2 = malloc(b * sizeof(double));
	double *dh = calloc(l * b, sizeof(double)), *dc = calloc(l * b, sizeof(double)), *dx = malloc(b * sizeof(double));
	memcpy(state, state0, 2 * l * b * sizeof(double));
#define SAVED(t, L, k) (save + (((size_t)(t) * l + (L)) * NSAVE + (k)) * b)
	for (int t = 0; t < T; t++) {
		const double *in = m->sequence + t * b;
		for (int i = 0; i < b; i++) x2[i] = in[i] * w2[i];
		const double *xp = x2;
		for (int L = 0; L < l; L++) {
			const double *W = w + L * 8 * b, *B = W + 4 * b;
			double *h = state + L * 2 * b, *cc = h + b;
			memcpy(SAVED(t, L, X), xp, b * sizeof(double));
			memcpy(SAVED(t, L, HPREV), h, b * sizeof(double));
			memcpy(SAVED(t, L, CPREV), cc, b * sizeof(double));
			double *f = SAVED(t, L, F), *ig = SAVED(t, L, I), *og = SAVED(t, L, O), *g = SAVED(t, L, G), *th = SAVED(t, L, TH);
			for (int i = 0; i < b; i++) {
				f[i] = 1 / (1 + exp(-(xp[i] * W[i] + B[i])));
				ig[i] = 1 / (1 + exp(-(h[i] * W[b + i] + B[b + i])));
				og[i] = 1 / (1 + exp(-(xp[i] * W[2 * b + i] + B[2 * b + i])));
				g[i] = tanh(h[i] * W[3 * b + i] + B[3 * b + i]);
			}
			for (int i = 0; i < b; i++) {
				cc[i] = cc[i] * f[i] + ig[i] * g[i];
				th[i] = tanh(cc[i]);
				h[i] = og[i] * th[i];
			}
			xp = h;
		}
		memcpy(htop + t * b, xp, b * sizeof(double));
		for (int i = 0; i < b; i++) ypred[t * b + i] = xp[i] * w2[b + i] + w2[2 * b + i];
	}
	double dtotal = -1.0 / (T * b);
	for (int t = T - 1; t >= 0; t--) {
		const double *ygold = m->sequence + (t + 1) * b, *y = ypred + t * b;
		/* total += sum ygold (y - log(sum exp y + 2)) */
		double sum = 0, z = 2;
		for (int i = 0; i < b; i++) { sum += ygold[i]; z += exp(y[i]); }
		for (int i = 0; i < b; i++) {
			double dy = dtotal * (ygold[i] - sum * exp(y[i]) / z);
			dw2[b + i] += dy * htop[t * b + i];
			dw2[2 * b + i] += dy;
			dx[i] = dy * w2[b + i];
		}
		for (int L = l - 1; L >= 0; L--) {
			const double *W = w + L * 8 * b;
			double *dW = dw + L * 8 * b, *dB = dW + 4 * b, *dhL = dh + L * b, *dcL = dc + L * b;
			const double *xin = SAVED(t, L, X), *hp = SAVED(t, L, HPREV), *cp = SAVED(t, L, CPREV);
			const double *f = SAVED(t, L, F), *ig = SAVED(t, L, I), *og = SAVED(t, L, O), *g = SAVED(t, L, G), *th = SAVED(t, L, TH);
			for (int i = 0; i < b; i++) {
				double dhi = dhL[i] + dx[i];
				double dcc = dcL[i] + dhi * og[i] * (1 - th[i] * th[i]);
				double zf = dcc * cp[i] * f[i] * (1 - f[i]);
				double zi = dcc * g[i] * ig[i] * (1 - ig[i]);
				double zo = dhi * th[i] * og[i] * (1 - og[i]);
				double zg = dcc * ig[i] * (1 - g[i] * g[i]);
				dW[i] += zf * xin[i];
				dB[i] += zf;
				dW[b + i] += zi * hp[i];
				dB[b + i] += zi;
				dW[2 * b + i] += zo * xin[i];
				dB[2 * b + i] += zo;
				dW[3 * b + i] += zg * hp[i];
				dB[3 * b + i] += zg;
				dcL[i] = dcc * f[i];
				dhL[i] = zi * W[b + i] + zg * W[3 * b + i];
				dx[i] = zf * W[i] + zo * W[2 * b + i];
			}
		}
		const double *in = m->sequence + t * b;
		for (int i = 0; i < b; i++) dw2[i] += dx[i] * in[i];
	}
#undef SAVED
	free(save); free(htop); free(ypred); free(state); free(x2); free(dh); free(dc); free(dx);
}

typedef struct {
	Lstm m;
	const double *state;
	int np, tag;
	double *p, *grad, *want;
} Case;

static void primal(void *a) { Case *c = a; bench_sink = lstm_objective(&c->m, c->state, c->p); }
static void hand(void *a) { Case *c = a; lstm_hand(&c->m, c->state, c->p, c->grad); }
static void gozyme(void *a) {
	Case *c = a;
	memset(c->grad, 0, c->np * sizeof(double));
	__enzyme_autodiff((void *)lstm_objective, enzyme_const, &c->m, enzyme_const, c->state, enzyme_dup, c->p, c->grad);
}
static void adolc_tape(void *a) { Case *c = a; adolc_lstm_tape(c->tag, &c->m, c->state, c->p); }
static void adolc(void *a) { Case *c = a; adolc_lstm_grad(c->tag, &c->m, c->p, c->grad); }
static double value(void *a, const double *p) { Case *c = a; return lstm_objective(&c->m, c->state, p); }
static void fd(void *a) { Case *c = a; fd_gradient(value, c, c->p, c->np, c->grad); }

static int run(int l, int chars, int b, int tag, int timed) {
	Case c = {{l, chars, b}, 0, 0, tag};
	c.np = lstm_params(&c.m);
	double *state = malloc(2 * l * b * sizeof(double)), *seq = malloc(chars * b * sizeof(double));
	for (int i = 0; i < 2 * l * b; i++) state[i] = uniform();
	for (int i = 0; i < chars * b; i++) seq[i] = uniform();
	c.state = state;
	c.m.sequence = seq;
	c.p = malloc(c.np * sizeof(double));
	for (int i = 0; i < c.np; i++) c.p[i] = uniform();
	c.grad = malloc(c.np * sizeof(double));
	c.want = malloc(c.np * sizeof(double));
	lstm_hand(&c.m, state, c.p, c.want);
	char name[64];
	snprintf(name, sizeof name, "lstm(l=%d,c=%d)", l, chars);
	Methods m = {primal, gozyme, hand, adolc_tape, adolc, l == 2 || !timed ? fd : NULL};
	int ok = run_case(name, &c, &m, c.grad, c.want, c.np, timed);
	free(state); free(seq); free(c.p); free(c.grad); free(c.want);
	return ok;
}

int main(int argc, char **argv) {
	if (argc > 1 && strcmp(argv[1], "test") == 0) {
		int ok = run(2, 5, 3, 1, 0) & run(3, 4, 2, 2, 0);
		puts(ok ? "OK" : "FAILED");
		return !ok;
	}
	harness_init(argc, argv);
	run(2, 1024, 14, 1, 1);
	run(4, 1024, 14, 2, 1);
	return 0;
}
