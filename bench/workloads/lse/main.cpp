// Log-sum-exp workload (GradBench's lse), client-style C++: n = 80000.
#include "../harness.hpp"
#include "lse.hpp"

namespace {

// lse_hand is the gradient written by hand: the softmax of x.
void lse_hand(const std::vector<double> &x, std::vector<double> &g) {
	double mx = *std::max_element(x.begin(), x.end()), sum = 0;
	for (size_t i = 0; i < x.size(); i++) {
		g[i] = std::exp(x[i] - mx);
		sum += g[i];
	}
	for (double &v : g) v /= sum;
}

struct Case {
	std::vector<double> x, grad, want;
	int tag;
};

bool run(size_t n, int tag, bool timed) {
	Case c{uniform_vector(n, 5), std::vector<double>(n), std::vector<double>(n), tag};
	lse_hand(c.x, c.want);
	Methods m = {
		[](void *a) { bench_sink = logsumexp(static_cast<Case *>(a)->x); },
		[](void *a) {
			Case *c = static_cast<Case *>(a);
			std::fill(c->grad.begin(), c->grad.end(), 0.0);
			__enzyme_autodiff<void>((void *)logsumexp<double>, enzyme_dup, &c->x, &c->grad);
		},
		[](void *a) { Case *c = static_cast<Case *>(a); lse_hand(c->x, c->grad); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_lse_tape(c->tag, c->x); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_lse_grad(c->tag, c->x, c->grad); },
		[](void *a) {
			Case *c = static_cast<Case *>(a);
			fd_gradient([](void *a, const double *) { return logsumexp(static_cast<Case *>(a)->x); }, c, c->x.data(),
				(long)c->x.size(), c->grad.data());
		},
	};
	if (timed) m.fd = nullptr;
	char name[64];
	snprintf(name, sizeof name, "lse(n=%zu)", n);
	return run_case(name, &c, &m, c.grad.data(), c.want.data(), (long)n, timed);
}

} // namespace

int main(int argc, char **argv) {
	bool testing = test_mode(argc, argv);
	harness_init(argc, argv);
	if (testing) return finish(true, run(7, 1, false) & run(100, 2, false));
	run(80000, 1, true);
	return 0;
}
