/* BA workload (ADBench): the 2x15 Jacobian of the reprojection error of each
 * of M observations (gozyme: two reverse passes per observation). */
#include "../harness.h"
#define REAL double
#include "ba.h"

void __enzyme_autodiff(void *, ...);

static void cross(const double *a, const double *b, double *out) {
	out[0] = a[1] * b[2] - a[2] * b[1];
	out[1] = a[2] * b[0] - a[0] * b[2];
	out[2] = a[0] * b[1] - a[1] * b[0];
}

/* ba_hand writes the 2x15 Jacobian of ba_reproj, derived by hand: the
 * forward pass, then the adjoint of each output row back to the 15
 * parameters (rotation angle nonzero). */
static void ba_hand(const double *p, const double *feat, double *jac) {
	const double *rot = p, *cam = p;
	double xc[3] = {p[11] - p[3], p[12] - p[4], p[13] - p[5]};
	double theta = sqrt(rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2]);
	double c = cos(theta), s = sin(theta), w[3] = {rot[0] / theta, rot[1] / theta, rot[2] / theta}, wx[3];
	cross(w, xc, wx);
	double dot = w[0] * xc[0] + w[1] * xc[1] + w[2] * xc[2], t = (1 - c) * dot, r[3];
	for (int i = 0; i < 3; i++) r[i] = xc[i] * c + wx[i] * s + w[i] * t;
	double pr[2] = {r[0] / r[2], r[1] / r[2]};
	double rsq = pr[0] * pr[0] + pr[1] * pr[1], L = 1 + cam[9] * rsq + cam[10] * rsq * rsq;
	double q[2] = {pr[0] * L, pr[1] * L}, proj[2] = {q[0] * cam[6] + cam[7], q[1] * cam[6] + cam[8]};
	for (int row = 0; row < 2; row++) {
		double *g = jac + row * BA_NP;
		double ebar[2] = {row == 0, row == 1};
		g[14] = ebar[0] * (proj[0] - feat[0]) + ebar[1] * (proj[1] - feat[1]);
		double projbar[2] = {ebar[0] * p[14], ebar[1] * p[14]};
		g[6] = projbar[0] * q[0] + projbar[1] * q[1];
		g[7] = projbar[0];
		g[8] = projbar[1];
		double qbar[2] = {projbar[0] * cam[6], projbar[1] * cam[6]};
		double Lbar = qbar[0] * pr[0] + qbar[1] * pr[1];
		g[9] = Lbar * rsq;
		g[10] = Lbar * rsq * rsq;
		double rsqbar = Lbar * (cam[9] + 2 * cam[10] * rsq);
		double pbar[2] = {qbar[0] * L + 2 * pr[0] * rsqbar, qbar[1] * L + 2 * pr[1] * rsqbar};
		double rbar[3] = {pbar[0] / r[2], pbar[1] / r[2], -(pbar[0] * pr[0] + pbar[1] * pr[1]) / r[2]};
		/* r = xc cos + (w x xc) sin + w t, t = (1 - cos) (w . xc) */
		double xcbar[3], wbar[3], wxbar[3], cbar = 0, sbar = 0, tbar = 0;
		for (int i = 0; i < 3; i++) {
			xcbar[i] = rbar[i] * c;
			cbar += rbar[i] * xc[i];
			wxbar[i] = rbar[i] * s;
			sbar += rbar[i] * wx[i];
			wbar[i] = rbar[i] * t;
			tbar += rbar[i] * w[i];
		}
		cbar -= tbar * dot;
		double dotbar = tbar * (1 - c), tmp[3];
		for (int i = 0; i < 3; i++) { wbar[i] += dotbar * xc[i]; xcbar[i] += dotbar * w[i]; }
		cross(xc, wxbar, tmp); /* d(w x xc)/dw: xc x wxbar */
		for (int i = 0; i < 3; i++) wbar[i] += tmp[i];
		cross(wxbar, w, tmp); /* d(w x xc)/dxc: wxbar x w */
		for (int i = 0; i < 3; i++) xcbar[i] += tmp[i];
		double thetabar = -s * cbar + c * sbar - (wbar[0] * rot[0] + wbar[1] * rot[1] + wbar[2] * rot[2]) / (theta * theta);
		for (int i = 0; i < 3; i++) {
			g[i] = wbar[i] / theta + thetabar * rot[i] / theta;
			g[3 + i] = -xcbar[i];
			g[11 + i] = xcbar[i];
		}
	}
}

typedef struct {
	int m;
	double *p, *feat, *err, *jac, *want;
} Case;

static void primal(void *a) {
	Case *c = a;
	for (int o = 0; o < c->m; o++) ba_reproj(c->p + o * BA_NP, c->feat + 2 * o, c->err + 2 * o);
	bench_sink = c->err[0];
}
static void hand(void *a) {
	Case *c = a;
	for (int o = 0; o < c->m; o++) ba_hand(c->p + o * BA_NP, c->feat + 2 * o, c->jac + o * 2 * BA_NP);
}
static void gozyme(void *a) {
	Case *c = a;
	for (int o = 0; o < c->m; o++)
		for (int row = 0; row < 2; row++) {
			double *g = c->jac + (2 * o + row) * BA_NP, e[2], ebar[2] = {row == 0, row == 1};
			memset(g, 0, BA_NP * sizeof(double));
			__enzyme_autodiff((void *)ba_reproj, enzyme_dup, c->p + o * BA_NP, g, enzyme_const, c->feat + 2 * o,
				enzyme_dup, e, ebar);
		}
}
static void adolc_tape(void *a) { Case *c = a; adolc_ba_tape(1, c->p, c->feat); }
static void adolc(void *a) { Case *c = a; adolc_ba_jacobian(1, c->m, c->p, c->feat, c->jac); }
static double row_value(const double *p, const double *feat, int row) {
	double e[2];
	ba_reproj(p, feat, e);
	return e[row];
}
static void fd(void *a) {
	Case *c = a;
	for (int o = 0; o < c->m; o++)
		for (int row = 0; row < 2; row++)
			for (int j = 0; j < BA_NP; j++) {
				double *p = c->p + o * BA_NP, save = p[j], h = 1e-6 * fmax(1, fabs(save));
				p[j] = save + h;
				double fp = row_value(p, c->feat + 2 * o, row);
				p[j] = save - h;
				double fm = row_value(p, c->feat + 2 * o, row);
				p[j] = save;
				c->jac[(2 * o + row) * BA_NP + j] = (fp - fm) / (2 * h);
			}
}

int main(int argc, char **argv) {
	int testing = argc > 1 && strcmp(argv[1], "test") == 0;
	harness_init(argc, argv);
	Case c = {testing ? 20 : 10000};
	c.p = malloc(c.m * BA_NP * sizeof(double));
	c.feat = malloc(c.m * 2 * sizeof(double));
	c.err = malloc(c.m * 2 * sizeof(double));
	c.jac = malloc(c.m * 2 * BA_NP * sizeof(double));
	c.want = malloc(c.m * 2 * BA_NP * sizeof(double));
	for (int o = 0; o < c.m; o++) {
		double *p = c.p + o * BA_NP;
		for (int j = 0; j < 3; j++) p[j] = 0.5 * uniform();     /* rotation */
		for (int j = 3; j < 6; j++) p[j] = uniform();           /* center */
		p[6] = 1 + 0.1 * uniform();                             /* focal length */
		p[7] = 0.01 * uniform(); p[8] = 0.01 * uniform();       /* principal point */
		p[9] = 0.01 * uniform(); p[10] = 0.001 * uniform();     /* distortion */
		for (int j = 11; j < 14; j++) p[j] = uniform();         /* point */
		p[13] += 5;                                             /* in front of the camera */
		p[14] = 1 + 0.1 * uniform();                            /* weight */
		c.feat[2 * o] = uniform(); c.feat[2 * o + 1] = uniform();
	}
	long n = (long)c.m * 2 * BA_NP;
	hand(&c);
	memcpy(c.want, c.jac, n * sizeof(double));
	const char *name = testing ? "ba(m=20)" : "ba(m=10000)";
	Methods m = {primal, gozyme, hand, adolc_tape, adolc, fd};
	int ok = run_case(name, &c, &m, c.jac, c.want, n, !testing);
	if (testing) puts(ok ? "OK" : "FAILED");
	return !ok;
}
