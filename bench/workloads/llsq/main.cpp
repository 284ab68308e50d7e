// Linear least squares workload (GradBench's llsq), client-style C++:
// n = 1024 points, m = 128 coefficients.
#include "../harness.hpp"
#include "llsq.hpp"

namespace {

// llsq_hand is the gradient written by hand: per point the residual r_i,
// then d y / d x_j = -sum_i r_i t_i^j.
void llsq_hand(const std::vector<double> &x, std::size_t n, std::vector<double> &g) {
	std::size_t m = x.size();
	std::fill(g.begin(), g.end(), 0.0);
	for (std::size_t i = 0; i < n; i++) {
		double ti = -1 + double(i) * 2 / double(n - 1), power = 1;
		double r = double((ti > 0) - (ti < 0));
		for (std::size_t j = 0; j < m; j++) {
			r -= x[j] * power;
			power *= ti;
		}
		power = 1;
		for (std::size_t j = 0; j < m; j++) {
			g[j] -= r * power;
			power *= ti;
		}
	}
}

struct Case {
	std::vector<double> x;
	std::size_t n;
	std::vector<double> grad, want;
	int tag;
};

bool run(std::size_t n, std::size_t m, int tag, bool timed) {
	Case c{uniform_vector(m), n, std::vector<double>(m), std::vector<double>(m), tag};
	llsq_hand(c.x, n, c.want);
	Methods ms = {
		[](void *a) { Case *c = static_cast<Case *>(a); bench_sink = llsq_objective(c->x, c->n); },
		[](void *a) {
			Case *c = static_cast<Case *>(a);
			std::fill(c->grad.begin(), c->grad.end(), 0.0);
			__enzyme_autodiff<void>((void *)llsq_objective<double>, enzyme_dup, &c->x, &c->grad, enzyme_const, c->n);
		},
		[](void *a) { Case *c = static_cast<Case *>(a); llsq_hand(c->x, c->n, c->grad); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_llsq_tape(c->tag, c->x, c->n); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_llsq_grad(c->tag, c->x, c->grad); },
		[](void *a) {
			Case *c = static_cast<Case *>(a);
			fd_gradient([](void *a, const double *) { Case *c = static_cast<Case *>(a); return llsq_objective(c->x, c->n); },
				c, c->x.data(), (long)c->x.size(), c->grad.data());
		},
	};
	char name[64];
	snprintf(name, sizeof name, "llsq(n=%zu,m=%zu)", n, m);
	return run_case(name, &c, &ms, c.grad.data(), c.want.data(), (long)m, timed);
}

} // namespace

int main(int argc, char **argv) {
	bool testing = test_mode(argc, argv);
	harness_init(argc, argv);
	if (testing) return finish(true, run(9, 4, 1, false) & run(64, 17, 2, false));
	run(1024, 128, 1, true);
	return 0;
}
