// Bundle-adjustment workload (ADBench), client-style C++: the 2 x 15
// Jacobian of each observation's reprojection error (gozyme: two reverse
// passes per observation, as client code asks for them), with 20000 and
// 200000 observations.
#include "../harness.hpp"
#include "ba.hpp"

namespace {

// ba_hand writes the 2 x 15 Jacobian of one observation (columns: cam (11),
// X (3), w), derived by hand: the forward pass, then the adjoint of each
// output row back to the parameters (rotation angle nonzero).
void ba_hand(const double *cam, const double *X, double w, const double *feat, double *jac) {
	const double *rot = cam;
	Vec3<double> xc = {X[0] - cam[3], X[1] - cam[4], X[2] - cam[5]};
	double theta = std::sqrt(rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2]);
	double c = std::cos(theta), s = std::sin(theta);
	Vec3<double> wv = {rot[0] / theta, rot[1] / theta, rot[2] / theta};
	Vec3<double> wx = cross(wv, xc);
	double dt = dot(wv, xc), t = (1 - c) * dt, r[3];
	for (int i = 0; i < 3; i++) r[i] = xc[i] * c + wx[i] * s + wv[i] * t;
	double pr[2] = {r[0] / r[2], r[1] / r[2]};
	double rsq = pr[0] * pr[0] + pr[1] * pr[1], L = 1 + cam[9] * rsq + cam[10] * rsq * rsq;
	double q[2] = {pr[0] * L, pr[1] * L}, proj[2] = {q[0] * cam[6] + cam[7], q[1] * cam[6] + cam[8]};
	for (int row = 0; row < 2; row++) {
		double *g = jac + row * 15;
		double eb[2] = {double(row == 0), double(row == 1)};
		g[14] = eb[0] * (proj[0] - feat[0]) + eb[1] * (proj[1] - feat[1]);
		double pb[2] = {eb[0] * w, eb[1] * w};
		g[6] = pb[0] * q[0] + pb[1] * q[1];
		g[7] = pb[0];
		g[8] = pb[1];
		double qb[2] = {pb[0] * cam[6], pb[1] * cam[6]};
		double Lb = qb[0] * pr[0] + qb[1] * pr[1];
		g[9] = Lb * rsq;
		g[10] = Lb * rsq * rsq;
		double rsqb = Lb * (cam[9] + 2 * cam[10] * rsq);
		double prb[2] = {qb[0] * L + 2 * pr[0] * rsqb, qb[1] * L + 2 * pr[1] * rsqb};
		double rb[3] = {prb[0] / r[2], prb[1] / r[2], -(prb[0] * pr[0] + prb[1] * pr[1]) / r[2]};
		// r = xc cos + (w x xc) sin + w t, t = (1 - cos) (w . xc)
		Vec3<double> xcb, wb, wxb;
		double cb = 0, sb = 0, tb = 0;
		for (int i = 0; i < 3; i++) {
			xcb[i] = rb[i] * c;
			cb += rb[i] * xc[i];
			wxb[i] = rb[i] * s;
			sb += rb[i] * wx[i];
			wb[i] = rb[i] * t;
			tb += rb[i] * wv[i];
		}
		cb -= tb * dt;
		double dotb = tb * (1 - c);
		for (int i = 0; i < 3; i++) {
			wb[i] += dotb * xc[i];
			xcb[i] += dotb * wv[i];
		}
		Vec3<double> a = cross(xc, wxb), b = cross(wxb, wv); // d(w x xc)/dw, d(w x xc)/dxc
		for (int i = 0; i < 3; i++) {
			wb[i] += a[i];
			xcb[i] += b[i];
		}
		double thetab = -s * cb + c * sb - dot(wb, Vec3<double>{rot[0], rot[1], rot[2]}) / (theta * theta);
		for (int i = 0; i < 3; i++) {
			g[i] = wb[i] / theta + thetab * rot[i] / theta;
			g[3 + i] = -xcb[i];
			g[11 + i] = xcb[i];
		}
	}
}

struct Case {
	BAInput in;
	std::vector<double> err, jac, want;
	int tag;
};

void hand(Case *c) {
	const BAInput &in = c->in;
	for (int o = 0; o < in.p; o++)
		ba_hand(&in.cams[in.obs[2 * o] * 11], &in.X[in.obs[2 * o + 1] * 3], in.w[o], &in.feats[2 * o], &c->jac[(size_t)o * 30]);
}

// gozyme_jacobian asks for the two rows of each observation's Jacobian as
// client code does: shadows of the camera, the point and the weight, seeded
// with each row of the identity in the error's shadow.
void gozyme_jacobian(Case *c) {
	const BAInput &in = c->in;
	for (int o = 0; o < in.p; o++) {
		const double *cam = &in.cams[in.obs[2 * o] * 11], *X = &in.X[in.obs[2 * o + 1] * 3];
		for (int row = 0; row < 2; row++) {
			double dcam[11] = {}, dX[3] = {}, dw = 0, err[2], derr[2] = {double(row == 0), double(row == 1)};
			__enzyme_autodiff<void>((void *)reproj_error<double>, enzyme_dup, cam, dcam, enzyme_dup, X, dX, enzyme_dup,
				&in.w[o], &dw, enzyme_const, &in.feats[2 * o], enzyme_dupnoneed, err, derr);
			double *g = &c->jac[(size_t)o * 30 + row * 15];
			std::copy(dcam, dcam + 11, g);
			std::copy(dX, dX + 3, g + 11);
			g[14] = dw;
		}
	}
}

void primal(Case *c) {
	const BAInput &in = c->in;
	for (int o = 0; o < in.p; o++)
		reproj_error(&in.cams[in.obs[2 * o] * 11], &in.X[in.obs[2 * o + 1] * 3], &in.w[o], &in.feats[2 * o], &c->err[2 * o]);
	bench_sink = c->err[0];
}

// fd perturbs each observation's 15 parameters in copies of its own.
void fd(Case *c) {
	const BAInput &in = c->in;
	for (int o = 0; o < in.p; o++) {
		double prm[15];
		std::copy(&in.cams[in.obs[2 * o] * 11], &in.cams[in.obs[2 * o] * 11] + 11, prm);
		std::copy(&in.X[in.obs[2 * o + 1] * 3], &in.X[in.obs[2 * o + 1] * 3] + 3, prm + 11);
		prm[14] = in.w[o];
		for (int j = 0; j < 15; j++) {
			double save = prm[j], h = 1e-6 * std::fmax(1, std::fabs(save)), ep[2], em[2];
			prm[j] = save + h;
			reproj_error(prm, prm + 11, prm + 14, &in.feats[2 * o], ep);
			prm[j] = save - h;
			reproj_error(prm, prm + 11, prm + 14, &in.feats[2 * o], em);
			prm[j] = save;
			for (int row = 0; row < 2; row++) c->jac[(size_t)o * 30 + row * 15 + j] = (ep[row] - em[row]) / (2 * h);
		}
	}
}

BAInput make_input(int n, int m, int p) {
	BAInput in{n, m, p};
	in.cams.resize((size_t)n * 11);
	for (int i = 0; i < n; i++) {
		double *cam = &in.cams[(size_t)i * 11];
		for (int j = 0; j < 3; j++) cam[j] = 0.5 * uniform(); // rotation
		for (int j = 3; j < 6; j++) cam[j] = uniform();       // center
		cam[6] = 1 + 0.1 * uniform();                         // focal length
		cam[7] = 0.01 * uniform();                            // principal point
		cam[8] = 0.01 * uniform();
		cam[9] = 0.01 * uniform(); // distortion
		cam[10] = 0.001 * uniform();
	}
	in.X.resize((size_t)m * 3);
	for (int i = 0; i < m; i++) {
		for (int j = 0; j < 3; j++) in.X[(size_t)i * 3 + j] = uniform();
		in.X[(size_t)i * 3 + 2] += 5; // in front of the cameras
	}
	in.w = uniform_vector(p, 0.1);
	for (double &w : in.w) w += 1;
	in.feats = uniform_vector((size_t)p * 2);
	in.obs.resize((size_t)p * 2);
	for (int o = 0; o < p; o++) {
		in.obs[2 * o] = o % n;
		in.obs[2 * o + 1] = o % m;
	}
	return in;
}

bool run(int n, int m, int p, int tag, bool timed) {
	Case c{make_input(n, m, p), std::vector<double>((size_t)p * 2), std::vector<double>((size_t)p * 30),
		std::vector<double>((size_t)p * 30), tag};
	hand(&c);
	c.want = c.jac;
	Methods ms = {
		[](void *a) { primal(static_cast<Case *>(a)); },
		[](void *a) { gozyme_jacobian(static_cast<Case *>(a)); },
		[](void *a) { hand(static_cast<Case *>(a)); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_ba_tape(c->tag, c->in); },
		[](void *a) { Case *c = static_cast<Case *>(a); adolc_ba_jacobian(c->tag, c->in, c->jac); },
		[](void *a) { fd(static_cast<Case *>(a)); },
	};
	char name[64];
	snprintf(name, sizeof name, "ba-cxx(p=%d)", p);
	return run_case(name, &c, &ms, c.jac.data(), c.want.data(), (long)p * 30, timed);
}

} // namespace

int main(int argc, char **argv) {
	bool testing = test_mode(argc, argv);
	harness_init(argc, argv);
	if (testing) return finish(true, run(3, 5, 20, 1, false));
	run(50, 5000, 20000, 1, true);
	run(500, 50000, 200000, 2, true);
	return 0;
}
