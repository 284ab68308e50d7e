/* LSTM objective (ADBench): l layers of ADBench's (diagonal) LSTM cell over a
 * sequence of c characters of b values, loss = -mean log-softmax-like score,
 * written once over REAL (double in C, adouble in C++ for ADOL-C).
 * Parameters p = [main (l layers x (weights 4b, biases 4b)), extra (input
 * weights b, output weights b, output biases b)]. */
#ifndef LSTM_H
#define LSTM_H

typedef struct {
	int l, c, b;
	const double *sequence; /* c*b */
} Lstm;

static inline int lstm_params(const Lstm *s) { return s->l * 8 * s->b + 3 * s->b; }

static REAL lstm_sigmoid(REAL x) { return 1 / (1 + exp(-x)); }

/* ADBench's logsumexp: log(sum(exp(x)) + 2). */
static REAL lstm_logsumexp(const REAL *x, int n) {
	REAL s = 0;
	for (int i = 0; i < n; i++) s += exp(x[i]);
	return log(s + 2);
}

static void lstm_model(int b, const REAL *w, const REAL *bias, REAL *hidden, REAL *cell, const REAL *input, REAL *gates) {
	REAL *forget = gates, *ingate = gates + b, *outgate = gates + 2 * b, *change = gates + 3 * b;
	for (int i = 0; i < b; i++) {
		forget[i] = lstm_sigmoid(input[i] * w[i] + bias[i]);
		ingate[i] = lstm_sigmoid(hidden[i] * w[b + i] + bias[b + i]);
		outgate[i] = lstm_sigmoid(input[i] * w[2 * b + i] + bias[2 * b + i]);
		change[i] = tanh(hidden[i] * w[3 * b + i] + bias[3 * b + i]);
	}
	for (int i = 0; i < b; i++) cell[i] = cell[i] * forget[i] + ingate[i] * change[i];
	for (int i = 0; i < b; i++) hidden[i] = outgate[i] * tanh(cell[i]);
}

static void lstm_predict(int l, int b, const REAL *w, const REAL *w2, REAL *s, const REAL *x, REAL *x2, REAL *gates) {
	for (int i = 0; i < b; i++) x2[i] = x[i] * w2[i];
	const REAL *xp = x2;
	for (int i = 0; i < l; i++) {
		lstm_model(b, w + i * 8 * b, w + i * 8 * b + 4 * b, s + i * 2 * b, s + i * 2 * b + b, xp, gates);
		xp = s + i * 2 * b;
	}
	for (int i = 0; i < b; i++) x2[i] = xp[i] * w2[b + i] + w2[2 * b + i];
}

/* state0 is the initial hidden and cell of each layer (2*l*b), copied: a
 * separate argument, as in ADBench. */
static REAL lstm_objective(const Lstm *m, const double *state0, const REAL *p) {
	int l = m->l, c = m->c, b = m->b;
	const REAL *main_params = p, *extra = p + l * 8 * b;
	REAL *state = ALLOC(2 * l * b), *input = ALLOC(b), *ypred = ALLOC(b), *gates = ALLOC(4 * b);
	for (int i = 0; i < 2 * l * b; i++) state[i] = state0[i];
	REAL total = 0;
	for (int t = 0; t < c - 1; t++) {
		for (int i = 0; i < b; i++) input[i] = m->sequence[t * b + i];
		lstm_predict(l, b, main_params, extra, state, input, ypred, gates);
		REAL lse = lstm_logsumexp(ypred, b);
		const double *ygold = m->sequence + (t + 1) * b;
		for (int i = 0; i < b; i++) total += ygold[i] * (ypred[i] - lse);
	}
	REAL loss = -total / ((c - 1) * b);
	FREE(state); FREE(input); FREE(ypred); FREE(gates);
	return loss;
}

/* The ADOL-C version (adolc.cpp), declared once for both languages. */
#ifdef __cplusplus
extern "C" {
#endif
void adolc_lstm_tape(int tag, const Lstm *m, const double *state0, const double *p);
void adolc_lstm_grad(int tag, const Lstm *m, const double *p, double *grad);
#ifdef __cplusplus
}
#endif
#endif
