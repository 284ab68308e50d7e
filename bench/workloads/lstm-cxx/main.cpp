// LSTM workload (ADBench), client-style C++: b = 14, (l, c) in (2, 1024)
// and (4, 4096).
#include "../harness.hpp"
#include "lstm.hpp"

namespace {

// What the hand-written reverse pass keeps per step and layer.
enum { X, HPREV, CPREV, F, I, O, G, TH, NSAVE };

// lstm_hand writes the gradient (main then extra) by hand: the forward pass
// keeps each cell's input, previous state, gates and tanh(cell); the reverse
// pass runs back through time carrying d hidden and d cell of every layer.
void lstm_hand(const LSTMInput &in, const std::vector<double> &w, const std::vector<double> &w2, std::vector<double> &grad) {
	const int l = in.l, b = in.b, T = in.c - 1;
	std::fill(grad.begin(), grad.end(), 0.0);
	double *dw = grad.data(), *dw2 = grad.data() + w.size();
	std::vector<double> save((size_t)T * l * NSAVE * b), htop((size_t)T * b), ypred((size_t)T * b);
	std::vector<double> state(in.state), x2(b), dh(l * b), dc(l * b), dx(b);
	auto saved = [&](int t, int L, int k) { return &save[(((size_t)t * l + L) * NSAVE + k) * b]; };
	for (int t = 0; t < T; t++) {
		const double *inp = &in.sequence[(size_t)t * b];
		for (int i = 0; i < b; i++) x2[i] = inp[i] * w2[i];
		const double *xp = x2.data();
		for (int L = 0; L < l; L++) {
			const double *W = &w[L * 8 * b], *B = W + 4 * b;
			double *h = &state[L * 2 * b], *cc = h + b;
			std::copy(xp, xp + b, saved(t, L, X));
			std::copy(h, h + b, saved(t, L, HPREV));
			std::copy(cc, cc + b, saved(t, L, CPREV));
			double *f = saved(t, L, F), *ig = saved(t, L, I), *og = saved(t, L, O), *g = saved(t, L, G), *th = saved(t, L, TH);
			for (int i = 0; i < b; i++) {
				f[i] = 1 / (1 + std::exp(-(xp[i] * W[i] + B[i])));
				ig[i] = 1 / (1 + std::exp(-(h[i] * W[b + i] + B[b + i])));
				og[i] = 1 / (1 + std::exp(-(xp[i] * W[2 * b + i] + B[2 * b + i])));
				g[i] = std::tanh(h[i] * W[3 * b + i] + B[3 * b + i]);
			}
			for (int i = 0; i < b; i++) {
				cc[i] = cc[i] * f[i] + ig[i] * g[i];
				th[i] = std::tanh(cc[i]);
				h[i] = og[i] * th[i];
			}
			xp = h;
		}
		std::copy(xp, xp + b, &htop[(size_t)t * b]);
		for (int i = 0; i < b; i++) ypred[(size_t)t * b + i] = xp[i] * w2[b + i] + w2[2 * b + i];
	}
	double dtotal = -1.0 / (T * b);
	for (int t = T - 1; t >= 0; t--) {
		const double *ygold = &in.sequence[(size_t)(t + 1) * b], *y = &ypred[(size_t)t * b];
		double sum = 0, z = 2;
		for (int i = 0; i < b; i++) {
			sum += ygold[i];
			z += std::exp(y[i]);
		}
		for (int i = 0; i < b; i++) {
			double dy = dtotal * (ygold[i] - sum * std::exp(y[i]) / z);
			dw2[b + i] += dy * htop[(size_t)t * b + i];
			dw2[2 * b + i] += dy;
			dx[i] = dy * w2[b + i];
		}
		for (int L = l - 1; L >= 0; L--) {
			const double *W = &w[L * 8 * b];
			double *dW = dw + L * 8 * b, *dB = dW + 4 * b, *dhL = &dh[L * b], *dcL = &dc[L * b];
			const double *xin = saved(t, L, X), *hp = saved(t, L, HPREV), *cp = saved(t, L, CPREV);
			const double *f = saved(t, L, F), *ig = saved(t, L, I), *og = saved(t, L, O), *g = saved(t, L, G), *th = saved(t, L, TH);
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
		const double *inp = &in.sequence[(size_t)t * b];
		for (int i = 0; i < b; i++) dw2[i] += dx[i] * inp[i];
	}
}

struct Case {
	LSTMInput in;
	std::vector<double> w, w2, dw, dw2, params, grad, want;
	int tag;
};

void gozyme_grad(Case *c) {
	std::fill(c->dw.begin(), c->dw.end(), 0.0);
	std::fill(c->dw2.begin(), c->dw2.end(), 0.0);
	__enzyme_autodiff<void>((void *)lstm_objective<double>, enzyme_const, &c->in, enzyme_dup, &c->w, &c->dw, enzyme_dup,
		&c->w2, &c->dw2);
	std::copy(c->dw2.begin(), c->dw2.end(), std::copy(c->dw.begin(), c->dw.end(), c->grad.begin()));
}

// split copies a concatenated parameter vector into main and extra.
void split(Case *c, const double *p) {
	std::copy(p, p + c->w.size(), c->w.begin());
	std::copy(p + c->w.size(), p + c->w.size() + c->w2.size(), c->w2.begin());
}

bool run(int l, int chars, int b, int tag, bool timed) {
	Case c{{l, chars, b, uniform_vector((size_t)chars * b), uniform_vector(2 * l * b)}};
	c.tag = tag;
	c.w = uniform_vector(8 * l * b);
	c.w2 = uniform_vector(3 * b);
	c.dw.resize(c.w.size());
	c.dw2.resize(c.w2.size());
	size_t np = c.w.size() + c.w2.size();
	c.params.resize(np);
	c.grad.resize(np);
	c.want.resize(np);
	lstm_hand(c.in, c.w, c.w2, c.want);
	Methods ms = {
		[](void *a) { Case *c = static_cast<Case *>(a); bench_sink = lstm_objective(c->in, c->w, c->w2); },
		[](void *a) { gozyme_grad(static_cast<Case *>(a)); },
		[](void *a) { Case *c = static_cast<Case *>(a); lstm_hand(c->in, c->w, c->w2, c->grad); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_lstm_tape(c->tag, c->in, c->w, c->w2); },
		[](void *a) {
			Case *c = static_cast<Case *>(a);
			std::copy(c->w2.begin(), c->w2.end(), std::copy(c->w.begin(), c->w.end(), c->params.begin()));
			adolc_lstm_grad(c->tag, c->params, c->grad);
		},
		[](void *a) {
			Case *c = static_cast<Case *>(a);
			std::copy(c->w2.begin(), c->w2.end(), std::copy(c->w.begin(), c->w.end(), c->params.begin()));
			fd_gradient(
				[](void *a, const double *p) {
					Case *c = static_cast<Case *>(a);
					split(c, p);
					return lstm_objective(c->in, c->w, c->w2);
				},
				c, c->params.data(), (long)c->params.size(), c->grad.data());
			split(c, c->params.data());
		},
	};
	if (timed) ms.fd = nullptr;
	char name[64];
	snprintf(name, sizeof name, "lstm-cxx(l=%d,c=%d)", l, chars);
	return run_case(name, &c, &ms, c.grad.data(), c.want.data(), (long)np, timed);
}

} // namespace

int main(int argc, char **argv) {
	bool testing = test_mode(argc, argv);
	harness_init(argc, argv);
	if (testing) return finish(true, run(2, 5, 3, 1, false) & run(3, 4, 2, 2, false));
	run(2, 1024, 14, 1, true);
	run(4, 4096, 14, 2, true);
	return 0;
}
