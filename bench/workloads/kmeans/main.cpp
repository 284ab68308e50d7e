// k-means workload (GradBench's kmeans), client-style C++: k = 100
// centroids, n = 10000 points, d = 16. gozyme computes the gradient and the
// Hessian diagonal by forward-over-reverse (the forward derivative, along a
// vector of ones, of a function taking the reverse-mode gradient: J is its
// primal, H its tangent); the method rof computes H alone by
// reverse-over-forward (the reverse-mode gradient of the directional
// derivative along ones), for comparison.
#include "../harness.hpp"
#include "kmeans.hpp"

namespace {

// kmeans_hand writes J and H (the Hessian diagonal) by hand: each point adds
// 2 (c_j - p_i) to its nearest centroid's gradient and 2 to its diagonal.
void kmeans_hand(const KMeansInput &in, const std::vector<double> &c, std::vector<double> &out) {
	int k = in.k, n = in.n, d = in.d;
	double *J = out.data(), *H = out.data() + k * d;
	std::fill(out.begin(), out.end(), 0.0);
	for (int i = 0; i < n; i++) {
		const double *p = &in.points[i * d];
		int best = 0;
		double bestd = 0;
		for (int j = 0; j < k; j++) {
			double s = 0;
			for (int l = 0; l < d; l++) s += (p[l] - c[j * d + l]) * (p[l] - c[j * d + l]);
			if (j == 0 || s < bestd) bestd = s, best = j;
		}
		for (int l = 0; l < d; l++) {
			J[best * d + l] += 2 * (c[best * d + l] - p[l]);
			H[best * d + l] += 2;
		}
	}
}

// kmeans_grad is the gradient as client code asks gozyme for it; its
// forward derivative is the Hessian-vector product.
void kmeans_grad(const KMeansInput &in, const std::vector<double> &c, std::vector<double> &J) {
	std::fill(J.begin(), J.end(), 0.0);
	__enzyme_autodiff<void>((void *)kmeans_cost<double>, enzyme_const, &in, enzyme_dup, &c, &J);
}

// kmeans_dirderiv is the derivative of the cost along v (forward mode); its
// gradient is the Hessian-vector product.
double kmeans_dirderiv(const KMeansInput &in, const std::vector<double> &c, const std::vector<double> &v) {
	return __enzyme_fwddiff<double>((void *)kmeans_cost<double>, enzyme_const, &in, enzyme_dup, &c, &v);
}

struct Case {
	KMeansInput in;
	std::vector<double> c, ones, J, H, out, want;
	int tag;
};

// for_dir computes J and H by forward-over-reverse into out.
void for_dir(Case *c) {
	std::fill(c->H.begin(), c->H.end(), 0.0);
	__enzyme_fwddiff<void>((void *)kmeans_grad, enzyme_const, &c->in, enzyme_dup, &c->c, &c->ones, enzyme_dup, &c->J, &c->H);
	std::copy(c->J.begin(), c->J.end(), c->out.begin());
	std::copy(c->H.begin(), c->H.end(), c->out.begin() + c->J.size());
}

// rof_dir computes H by reverse-over-forward into the second half of out.
void rof_dir(Case *c) {
	std::fill(c->H.begin(), c->H.end(), 0.0);
	__enzyme_autodiff<void>((void *)kmeans_dirderiv, enzyme_const, &c->in, enzyme_dup, &c->c, &c->H, enzyme_const, &c->ones);
	std::copy(c->H.begin(), c->H.end(), c->out.begin() + c->J.size());
}

bool run(int k, int n, int d, int tag, bool timed) {
	Case c{{k, n, d, uniform_vector((size_t)n * d)}, uniform_vector((size_t)k * d), std::vector<double>(k * d, 1.0),
		std::vector<double>(k * d), std::vector<double>(k * d), std::vector<double>(2 * k * d),
		std::vector<double>(2 * k * d), tag};
	kmeans_hand(c.in, c.c, c.want);
	Methods ms = {
		[](void *a) { Case *c = static_cast<Case *>(a); bench_sink = kmeans_cost(c->in, c->c); },
		[](void *a) { for_dir(static_cast<Case *>(a)); },
		[](void *a) { Case *c = static_cast<Case *>(a); kmeans_hand(c->in, c->c, c->out); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_kmeans_tape(c->tag, c->in, c->c); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_kmeans_dir(c->tag, c->c, c->out); },
		nullptr,
	};
	char name[64];
	snprintf(name, sizeof name, "kmeans(k=%d,n=%d,d=%d)", k, n, d);
	bool ok = run_case(name, &c, &ms, c.out.data(), c.want.data(), 2L * k * d, timed);
	// Reverse-over-forward computes H only: checked (and timed) on it.
	long kd = (long)k * d;
	if (!timed) {
		double err;
		rof_dir(&c);
		ok &= checked(name, "rof", c.out.data() + kd, c.want.data() + kd, kd, TOL_AD, &err);
	} else {
		time_checked(name, "rof", [](void *a) { rof_dir(static_cast<Case *>(a)); }, &c, c.out.data() + kd, c.want.data() + kd, kd, TOL_AD);
	}
	return ok;
}

} // namespace

int main(int argc, char **argv) {
	bool testing = test_mode(argc, argv);
	harness_init(argc, argv);
	if (testing) return finish(true, run(3, 20, 2, 1, false) & run(5, 40, 3, 2, false));
	run(100, 10000, 16, 1, true);
	return 0;
}
