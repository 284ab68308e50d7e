// GMM workload, client-style C++ (ADBench/GradBench): n = 1000 points,
// (d, k) in (10, 25) and (64, 50); the gradient with respect to alphas,
// means and icf.
#include "../harness.hpp"
#include "gmm.hpp"

namespace {

// gmm_hand writes the gradient (alphas, means, icf concatenated) by hand:
// per point the mixture weights (the softmax of the main terms), then each
// component's adjoint through y = Q (x - mu).
void gmm_hand(const GMMInput &in, const std::vector<double> &alphas, const std::vector<double> &means,
              const std::vector<double> &icf, std::vector<double> &grad) {
	const int d = in.d, k = in.k, n = in.n, isz = icf_size(d);
	std::fill(grad.begin(), grad.end(), 0.0);
	double *dalpha = grad.data(), *dmean = dalpha + k, *dicf = dmean + k * d;
	std::vector<double> qdiag(k * d), sumq(k), xc(k * d), y(k * d), w(k), wsum(k), gy(d);
	for (int ik = 0; ik < k; ik++)
		for (int j = 0; j < d; j++) {
			sumq[ik] += icf[ik * isz + j];
			qdiag[ik * d + j] = std::exp(icf[ik * isz + j]);
		}
	for (int ix = 0; ix < n; ix++) {
		const double *x = &in.x[ix * d];
		double mx = -INFINITY;
		for (int ik = 0; ik < k; ik++) {
			double *c = &xc[ik * d], *yk = &y[ik * d];
			const double *L = &icf[ik * isz + d], *D = &qdiag[ik * d];
			for (int j = 0; j < d; j++) {
				c[j] = x[j] - means[ik * d + j];
				yk[j] = D[j] * c[j];
			}
			for (int i = 0, li = 0; i < d; i++)
				for (int j = i + 1; j < d; j++) yk[j] += L[li++] * c[i];
			double s = 0;
			for (int j = 0; j < d; j++) s += yk[j] * yk[j];
			w[ik] = alphas[ik] + sumq[ik] - 0.5 * s;
			mx = std::max(mx, w[ik]);
		}
		double z = 0;
		for (int ik = 0; ik < k; ik++) z += (w[ik] = std::exp(w[ik] - mx));
		for (int ik = 0; ik < k; ik++) {
			double wk = w[ik] / z;
			const double *c = &xc[ik * d], *yk = &y[ik * d], *L = &icf[ik * isz + d], *D = &qdiag[ik * d];
			double *dq = dicf + ik * isz, *dL = dq + d, *dm = dmean + ik * d;
			wsum[ik] += wk;
			// main = ... - |y|^2 / 2: d main / d y = -y.
			for (int j = 0; j < d; j++) {
				gy[j] = -wk * yk[j];
				dq[j] += gy[j] * c[j] * D[j];
				dm[j] -= D[j] * gy[j];
			}
			for (int i = 0, li = 0; i < d; i++) {
				double ci = c[i], acc = 0;
				for (int j = i + 1; j < d; j++, li++) {
					dL[li] += gy[j] * ci;
					acc += L[li] * gy[j];
				}
				dm[i] -= acc;
			}
		}
	}
	double ma = *std::max_element(alphas.begin(), alphas.end()), za = 0;
	for (int ik = 0; ik < k; ik++) za += std::exp(alphas[ik] - ma);
	double gg = in.wishart.gamma * in.wishart.gamma;
	for (int ik = 0; ik < k; ik++) {
		dalpha[ik] = wsum[ik] - n * std::exp(alphas[ik] - ma) / za;
		for (int j = 0; j < d; j++)
			dicf[ik * isz + j] += wsum[ik] - gg * qdiag[ik * d + j] * qdiag[ik * d + j] + in.wishart.m;
		for (int i = d; i < isz; i++) dicf[ik * isz + i] -= gg * icf[ik * isz + i];
	}
}

struct Case {
	GMMInput in;
	std::vector<double> alphas, means, icf;
	std::vector<double> dalphas, dmeans, dicf, grad, want, params;
	int tag;
};

// gozyme_grad is the gradient as client code asks for it: one shadow
// vector per parameter vector, concatenated into grad for the check.
void gozyme_grad(Case *c) {
	std::fill(c->dalphas.begin(), c->dalphas.end(), 0.0);
	std::fill(c->dmeans.begin(), c->dmeans.end(), 0.0);
	std::fill(c->dicf.begin(), c->dicf.end(), 0.0);
	__enzyme_autodiff<void>((void *)gmm_objective<double>, enzyme_const, &c->in, enzyme_dup, &c->alphas, &c->dalphas,
		enzyme_dup, &c->means, &c->dmeans, enzyme_dup, &c->icf, &c->dicf);
	auto out = std::copy(c->dalphas.begin(), c->dalphas.end(), c->grad.begin());
	out = std::copy(c->dmeans.begin(), c->dmeans.end(), out);
	std::copy(c->dicf.begin(), c->dicf.end(), out);
}

double value(void *a, const double *) {
	Case *c = static_cast<Case *>(a);
	return gmm_objective(c->in, c->alphas, c->means, c->icf);
}

bool run(int d, int k, int n, int m, int tag, bool timed) {
	Case c{{d, k, n, uniform_vector((size_t)n * d), {1.0, m}}};
	c.tag = tag;
	c.alphas = uniform_vector(k);
	c.means = uniform_vector((size_t)k * d);
	c.icf = uniform_vector((size_t)k * icf_size(d), 0.1);
	c.dalphas.resize(k);
	c.dmeans.resize(c.means.size());
	c.dicf.resize(c.icf.size());
	size_t np = k + c.means.size() + c.icf.size();
	c.grad.resize(np);
	c.want.resize(np);
	gmm_hand(c.in, c.alphas, c.means, c.icf, c.want);
	Methods ms = {
		[](void *a) { bench_sink = value(a, nullptr); },
		[](void *a) { gozyme_grad(static_cast<Case *>(a)); },
		[](void *a) { Case *c = static_cast<Case *>(a); gmm_hand(c->in, c->alphas, c->means, c->icf, c->grad); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_gmm_tape(c->tag, c->in, c->alphas, c->means, c->icf); },
		[](void *a) {
			Case *c = static_cast<Case *>(a);
			auto out = std::copy(c->alphas.begin(), c->alphas.end(), c->params.begin());
			out = std::copy(c->means.begin(), c->means.end(), out);
			std::copy(c->icf.begin(), c->icf.end(), out);
			adolc_gmm_grad(c->tag, c->params, c->grad);
		},
		// Central differences on one concatenated vector: fd_gradient's
		// steps go through params, copied back into the three vectors.
		[](void *a) {
			Case *c = static_cast<Case *>(a);
			auto out = std::copy(c->alphas.begin(), c->alphas.end(), c->params.begin());
			out = std::copy(c->means.begin(), c->means.end(), out);
			std::copy(c->icf.begin(), c->icf.end(), out);
			fd_gradient(
				[](void *a, const double *p) {
					Case *c = static_cast<Case *>(a);
					std::copy(p, p + c->alphas.size(), c->alphas.begin());
					p += c->alphas.size();
					std::copy(p, p + c->means.size(), c->means.begin());
					p += c->means.size();
					std::copy(p, p + c->icf.size(), c->icf.begin());
					return value(a, nullptr);
				},
				c, c->params.data(), (long)c->params.size(), c->grad.data());
			const double *p = c->params.data();
			std::copy(p, p + c->alphas.size(), c->alphas.begin());
			std::copy(p + c->alphas.size(), p + c->alphas.size() + c->means.size(), c->means.begin());
			std::copy(p + c->alphas.size() + c->means.size(), p + c->params.size(), c->icf.begin());
		},
	};
	c.params.resize(np);
	// ADOL-C's tape of (64, 50) would hold about 2e8 operations: not run.
	if (timed && (long)n * k * d * d > 50000000L) ms.adolc = ms.adolc_tape = nullptr;
	if (timed) ms.fd = nullptr;
	char name[64];
	snprintf(name, sizeof name, "gmm-cxx(d=%d,k=%d)", d, k);
	return run_case(name, &c, &ms, c.grad.data(), c.want.data(), (long)np, timed);
}

} // namespace

int main(int argc, char **argv) {
	bool testing = test_mode(argc, argv);
	harness_init(argc, argv);
	if (testing) return finish(true, run(3, 4, 20, 3, 1, false) & run(5, 2, 7, 0, 2, false));
	run(10, 25, 1000, 0, 1, true);
	run(64, 50, 1000, 0, 2, true);
	return 0;
}
