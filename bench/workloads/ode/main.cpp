// ODE workload (GradBench's ode), client-style C++: n = 1000 unknowns,
// s = 1000 Runge-Kutta steps.
#include "../harness.hpp"
#include "ode.hpp"

namespace {

// ode_hand is the hand-written discrete adjoint: the forward sweep keeps y
// at the start of every step; the reverse sweep recomputes each step's
// stages from it and carries the adjoint of y back through them.
void ode_hand(const std::vector<double> &x, int s, std::vector<double> &g) {
	std::size_t n = x.size();
	double h = 2.0 / s;
	std::vector<double> ys((std::size_t)s * n), y(n, 0.0), k1(n), k2(n), k3(n), k4(n), t1(n), t2(n), t3(n);
	auto f = [&](const std::vector<double> &y, std::vector<double> &dy) {
		dy[0] = x[0];
		for (std::size_t i = 1; i < n; i++) dy[i] = x[i] * y[i - 1];
	};
	auto stages = [&](const double *y0) {
		std::copy(y0, y0 + n, y.begin());
		f(y, k1);
		for (std::size_t i = 0; i < n; i++) t1[i] = y[i] + h / 2 * k1[i];
		f(t1, k2);
		for (std::size_t i = 0; i < n; i++) t2[i] = y[i] + h / 2 * k2[i];
		f(t2, k3);
		for (std::size_t i = 0; i < n; i++) t3[i] = y[i] + h * k3[i];
		f(t3, k4);
	};
	for (int step = 0; step < s; step++) {
		std::copy(y.begin(), y.end(), ys.begin() + (std::size_t)step * n);
		stages(&ys[(std::size_t)step * n]);
		for (std::size_t i = 0; i < n; i++) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
	}
	// Adjoints: ybar of y, kb of a stage's derivative, tb of its argument.
	std::vector<double> ybar(n, 0.0), kb(n), tb(n);
	std::fill(g.begin(), g.end(), 0.0);
	ybar[n - 1] = 1;
	// backf adds the adjoint of dy = f(y) (dyb) into yb and g.
	auto backf = [&](const std::vector<double> &y, const std::vector<double> &dyb, std::vector<double> &yb) {
		g[0] += dyb[0];
		for (std::size_t i = 1; i < n; i++) {
			g[i] += dyb[i] * y[i - 1];
			yb[i - 1] += dyb[i] * x[i];
		}
	};
	std::vector<double> k1b(n), k2b(n), k3b(n);
	for (int step = s - 1; step >= 0; step--) {
		stages(&ys[(std::size_t)step * n]);
		// y_new = y + h/6 (k1 + 2 k2 + 2 k3 + k4): ybar stays, each k gets its share.
		for (std::size_t i = 0; i < n; i++) {
			k1b[i] = h / 6 * ybar[i];
			k2b[i] = h / 3 * ybar[i];
			k3b[i] = h / 3 * ybar[i];
			kb[i] = h / 6 * ybar[i]; // k4
		}
		// k4 = f(t3), t3 = y + h k3
		std::fill(tb.begin(), tb.end(), 0.0);
		backf(t3, kb, tb);
		for (std::size_t i = 0; i < n; i++) { ybar[i] += tb[i]; k3b[i] += h * tb[i]; }
		// k3 = f(t2), t2 = y + h/2 k2
		std::fill(tb.begin(), tb.end(), 0.0);
		backf(t2, k3b, tb);
		for (std::size_t i = 0; i < n; i++) { ybar[i] += tb[i]; k2b[i] += h / 2 * tb[i]; }
		// k2 = f(t1), t1 = y + h/2 k1
		std::fill(tb.begin(), tb.end(), 0.0);
		backf(t1, k2b, tb);
		for (std::size_t i = 0; i < n; i++) { ybar[i] += tb[i]; k1b[i] += h / 2 * tb[i]; }
		// k1 = f(y)
		backf(y, k1b, ybar);
	}
}

struct Case {
	std::vector<double> x;
	int s;
	std::vector<double> grad, want;
	int tag;
};

bool run(std::size_t n, int s, int tag, bool timed) {
	Case c{uniform_vector(n), s, std::vector<double>(n), std::vector<double>(n), tag};
	ode_hand(c.x, s, c.want);
	Methods ms = {
		[](void *a) { Case *c = static_cast<Case *>(a); bench_sink = ode_last(c->x, c->s); },
		[](void *a) {
			Case *c = static_cast<Case *>(a);
			std::fill(c->grad.begin(), c->grad.end(), 0.0);
			__enzyme_autodiff<void>((void *)ode_last<double>, enzyme_dup, &c->x, &c->grad, enzyme_const, c->s);
		},
		[](void *a) { Case *c = static_cast<Case *>(a); ode_hand(c->x, c->s, c->grad); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_ode_tape(c->tag, c->x, c->s); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_ode_grad(c->tag, c->x, c->grad); },
		[](void *a) {
			Case *c = static_cast<Case *>(a);
			fd_gradient([](void *a, const double *) { Case *c = static_cast<Case *>(a); return ode_last(c->x, c->s); },
				c, c->x.data(), (long)c->x.size(), c->grad.data());
		},
	};
	if (timed) ms.fd = nullptr;
	char name[64];
	snprintf(name, sizeof name, "ode(n=%zu,s=%d)", n, s);
	return run_case(name, &c, &ms, c.grad.data(), c.want.data(), (long)n, timed);
}

} // namespace

int main(int argc, char **argv) {
	bool testing = test_mode(argc, argv);
	harness_init(argc, argv);
	if (testing) return finish(true, run(1, 3, 1, false) & run(5, 4, 2, false) & run(20, 50, 3, false));
	run(1000, 1000, 1, true);
	return 0;
}
