// Determinant-by-minors workload (GradBench's det), client-style C++:
// ell = 9 (9! products), the gradient with respect to all 81 entries.
#include "../harness.hpp"
#include "det.hpp"

namespace {

// det_grad is the hand-written adjoint of det_of_minor, in the same
// recursion: it returns the minor's determinant and adds dbar times its
// gradient into g. An entry's adjoint is its cofactor (the sign times the
// minor's determinant); a minor's adjoint is the entry times the sign.
double det_grad(const std::vector<double> &a, std::size_t m, std::size_t n, std::vector<std::size_t> &r,
                std::vector<std::size_t> &c, double dbar, std::vector<double> &g) {
	std::size_t row = r[m];
	if (n == 1) {
		g[row * m + c[m]] += dbar;
		return a[row * m + c[m]];
	}
	r[m] = r[row];
	double det = 0, sign = 1;
	std::size_t prev = m;
	for (std::size_t k = 0, j = c[m]; k < n; k++, prev = j, j = c[j]) {
		c[prev] = c[j];
		double minor = det_grad(a, m, n - 1, r, c, sign * a[row * m + j] * dbar, g);
		c[prev] = j;
		g[row * m + j] += sign * minor * dbar;
		det += sign * a[row * m + j] * minor;
		sign = -sign;
	}
	r[m] = row;
	return det;
}

void det_hand(const std::vector<double> &a, std::size_t m, std::vector<double> &g) {
	std::vector<std::size_t> r(m + 1), c(m + 1);
	for (std::size_t i = 0; i < m; i++) r[i] = c[i] = i + 1;
	r[m] = c[m] = 0;
	std::fill(g.begin(), g.end(), 0.0);
	det_grad(a, m, m, r, c, 1, g);
}

struct Case {
	std::vector<double> a;
	std::size_t m;
	std::vector<double> grad, want;
	int tag;
};

bool run(std::size_t m, int tag, bool timed) {
	Case c{uniform_vector(m * m), m, std::vector<double>(m * m), std::vector<double>(m * m), tag};
	det_hand(c.a, m, c.want);
	Methods ms = {
		[](void *a) { Case *c = static_cast<Case *>(a); bench_sink = det_by_minor(c->a, c->m); },
		[](void *a) {
			Case *c = static_cast<Case *>(a);
			std::fill(c->grad.begin(), c->grad.end(), 0.0);
			__enzyme_autodiff<void>((void *)det_by_minor<double>, enzyme_dup, &c->a, &c->grad, enzyme_const, c->m);
		},
		[](void *a) { Case *c = static_cast<Case *>(a); det_hand(c->a, c->m, c->grad); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_det_tape(c->tag, c->a, c->m); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_det_grad(c->tag, c->a, c->grad); },
		[](void *a) {
			Case *c = static_cast<Case *>(a);
			fd_gradient([](void *a, const double *) { Case *c = static_cast<Case *>(a); return det_by_minor(c->a, c->m); },
				c, c->a.data(), (long)c->a.size(), c->grad.data());
		},
	};
	if (timed) ms.fd = nullptr;
	char name[64];
	snprintf(name, sizeof name, "det(ell=%zu)", m);
	return run_case(name, &c, &ms, c.grad.data(), c.want.data(), (long)(m * m), timed);
}

} // namespace

int main(int argc, char **argv) {
	bool testing = test_mode(argc, argv);
	harness_init(argc, argv);
	if (testing) return finish(true, run(1, 1, false) & run(3, 2, false) & run(5, 3, false));
	run(9, 1, true);
	return 0;
}
