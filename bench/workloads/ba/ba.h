/* Bundle adjustment (ADBench): the reprojection error of one observation,
 * err = w * (project(cam, X) - feat), written once over REAL (double in C,
 * adouble in C++ for ADOL-C). Parameters of one observation, p[15]: the
 * camera [rotation (angle-axis, 3), center (3), focal length, principal
 * point (2), radial distortion (2)], the point X (3) and the weight w. */
#ifndef BA_H
#define BA_H

enum { BA_NP = 15 };

/* ba_rotate is Rodrigues' rotation of x by the angle-axis vector rot. */
static void ba_rotate(const REAL *rot, const REAL *x, REAL *out) {
	REAL sqtheta = rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2];
	if (sqtheta != 0) {
		REAL theta = sqrt(sqtheta), c = cos(theta), s = sin(theta);
		REAL w[3] = {rot[0] / theta, rot[1] / theta, rot[2] / theta};
		REAL wx[3] = {w[1] * x[2] - w[2] * x[1], w[2] * x[0] - w[0] * x[2], w[0] * x[1] - w[1] * x[0]};
		REAL t = (1 - c) * (w[0] * x[0] + w[1] * x[1] + w[2] * x[2]);
		for (int i = 0; i < 3; i++) out[i] = x[i] * c + wx[i] * s + w[i] * t;
	} else {
		REAL rx[3] = {rot[1] * x[2] - rot[2] * x[1], rot[2] * x[0] - rot[0] * x[2], rot[0] * x[1] - rot[1] * x[0]};
		for (int i = 0; i < 3; i++) out[i] = x[i] + rx[i];
	}
}

/* ba_project is the camera's image of X, radial distortion included. */
static void ba_project(const REAL *p, REAL *proj) {
	const REAL *cam = p, *X = p + 11;
	REAL xc[3] = {X[0] - cam[3], X[1] - cam[4], X[2] - cam[5]}, r[3];
	ba_rotate(cam, xc, r);
	REAL p0 = r[0] / r[2], p1 = r[1] / r[2];
	REAL rsq = p0 * p0 + p1 * p1;
	REAL L = 1 + cam[9] * rsq + cam[10] * rsq * rsq;
	proj[0] = p0 * L * cam[6] + cam[7];
	proj[1] = p1 * L * cam[6] + cam[8];
}

static void ba_reproj(const REAL *p, const double *feat, REAL *err) {
	REAL proj[2];
	ba_project(p, proj);
	err[0] = p[14] * (proj[0] - feat[0]);
	err[1] = p[14] * (proj[1] - feat[1]);
}

/* The ADOL-C version (adolc.cpp), declared once for both languages. */
#ifdef __cplusplus
extern "C" {
#endif
void adolc_ba_tape(int tag, const double *p, const double *feat);
void adolc_ba_jacobian(int tag, int m, const double *p, const double *feat, double *jac);
#ifdef __cplusplus
}
#endif
#endif
