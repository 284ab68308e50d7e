// Bundle adjustment (ADBench), written as C++ client code writes it: small
// value types (std::array) returned by value, templates over the scalar
// type. The reprojection error of one observation is
//   err = w * (project(cam, X) - feat),
// cam = [rotation (angle-axis, 3), center (3), focal length, principal point
// (2), radial distortion (2)], X the point (3), w the observation's weight.
// The workload is the 2 x 15 Jacobian of every observation.
#ifndef BA_CXX_HPP
#define BA_CXX_HPP
#include <array>
#include <cmath>
#include <vector>

template <typename T> using Vec3 = std::array<T, 3>;

template <typename T> Vec3<T> cross(const Vec3<T> &a, const Vec3<T> &b) {
	return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

template <typename T> T dot(const Vec3<T> &a, const Vec3<T> &b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// rodrigues rotates x by the angle-axis vector rot.
template <typename T> Vec3<T> rodrigues(const Vec3<T> &rot, const Vec3<T> &x) {
	using std::cos;
	using std::sin;
	using std::sqrt;
	T sqtheta = dot(rot, rot);
	if (sqtheta != 0) {
		T theta = sqrt(sqtheta), c = cos(theta), s = sin(theta);
		Vec3<T> w = {rot[0] / theta, rot[1] / theta, rot[2] / theta};
		Vec3<T> wx = cross(w, x);
		T t = (1 - c) * dot(w, x);
		Vec3<T> out;
		for (int i = 0; i < 3; i++) out[i] = x[i] * c + wx[i] * s + w[i] * t;
		return out;
	}
	Vec3<T> rx = cross(rot, x), out;
	for (int i = 0; i < 3; i++) out[i] = x[i] + rx[i];
	return out;
}

template <typename T> std::array<T, 2> radial_distort(const T *k, std::array<T, 2> p) {
	T rsq = p[0] * p[0] + p[1] * p[1];
	T L = 1 + k[0] * rsq + k[1] * rsq * rsq;
	return {p[0] * L, p[1] * L};
}

template <typename T> std::array<T, 2> project(const T *cam, const T *X) {
	Vec3<T> rot = {cam[0], cam[1], cam[2]};
	Vec3<T> xc = {X[0] - cam[3], X[1] - cam[4], X[2] - cam[5]};
	Vec3<T> r = rodrigues(rot, xc);
	std::array<T, 2> d = radial_distort(cam + 9, std::array<T, 2>{r[0] / r[2], r[1] / r[2]});
	return {d[0] * cam[6] + cam[7], d[1] * cam[6] + cam[8]};
}

template <typename T> void reproj_error(const T *cam, const T *X, const T *w, const double *feat, T *err) {
	std::array<T, 2> proj = project(cam, X);
	err[0] = *w * (proj[0] - feat[0]);
	err[1] = *w * (proj[1] - feat[1]);
}

struct BAInput {
	int n, m, p;                 // cameras, points, observations
	std::vector<double> cams, X; // n x 11, m x 3
	std::vector<double> w, feats; // p, p x 2
	std::vector<int> obs;        // p x 2: camera and point of each observation
};

// The ADOL-C version (adolc.cpp): one tape for one observation (the feature
// taped as two more independents, so that it holds for all), the Jacobian of
// every observation on it (jac: p x 2 x 15).
void adolc_ba_tape(int tag, const BAInput &in);
void adolc_ba_jacobian(int tag, const BAInput &in, std::vector<double> &jac);
#endif
