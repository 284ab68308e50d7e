// A client of Eigen's dense decompositions (TestEigenSolve in
// tests/e2e/eigen_test.go): loss(A, b) = ||x||^2 where A x = b is solved by
// the decomposition DEC picks (0 LDLT, 1 LLT, 2 PartialPivLU,
// 3 HouseholderQR, 4 ColPivHouseholderQR), of a fixed size NN or, with
// DYN, of a dynamic one. The gradient with respect to A and b
// (__enzyme_autodiff, enzyme_dup) against central differences; prints
// "ok" or the entries that differ, and fails then.
#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
extern int enzyme_dup, enzyme_const;
template <typename R, typename... T> R __enzyme_autodiff(void *, T...);

#ifndef DEC
#define DEC 0
#endif
#ifndef NN
#define NN 4
#endif
#ifdef DYN
typedef Eigen::MatrixXd Mat;
typedef Eigen::VectorXd Vec;
#else
typedef Eigen::Matrix<double, NN, NN> Mat;
typedef Eigen::Matrix<double, NN, 1> Vec;
#endif

__attribute__((noinline)) double loss(const double *a, const double *b) {
	Mat A(NN, NN);
	Vec v(NN);
	for (int i = 0; i < NN; i++) {
		v(i) = b[i];
		for (int j = 0; j < NN; j++) A(i, j) = a[i * NN + j];
	}
	Vec x;
#if DEC == 0
	x = A.ldlt().solve(v);
#elif DEC == 1
	x = A.llt().solve(v);
#elif DEC == 2
	x = A.partialPivLu().solve(v);
#elif DEC == 3
	x = A.householderQr().solve(v);
#else
	x = A.colPivHouseholderQr().solve(v);
#endif
	return x.squaredNorm();
}

int main() {
	// Symmetric positive definite (LDLT and LLT read the lower triangle
	// only: the gradient of the upper one is 0, as its differences are).
	double a[NN * NN], b[NN], da[NN * NN] = {0}, db[NN] = {0};
	for (int i = 0; i < NN; i++) {
		b[i] = 0.3 + 0.1 * i;
		for (int j = 0; j < NN; j++)
			a[i * NN + j] = (i == j ? NN + 1.0 : 0.0) + 0.1 * ((i * 7 + j * 3) % 5) + 0.1 * ((j * 7 + i * 3) % 5);
	}
	__enzyme_autodiff<void>((void *)loss, enzyme_dup, a, da, enzyme_dup, b, db);
	int bad = 0;
	for (int k = 0; k < NN * NN + NN; k++) {
		double *p = k < NN * NN ? &a[k] : &b[k - NN * NN];
		double g = k < NN * NN ? da[k] : db[k - NN * NN];
		double h = 1e-6, s = *p;
		*p = s + h;
		double fp = loss(a, b);
		*p = s - h;
		double fm = loss(a, b);
		*p = s;
		double fd = (fp - fm) / (2 * h);
		if (!(std::fabs(g - fd) <= 1e-6 * (1 + std::fabs(fd)))) {
			std::printf("entry %d: gradient %.12g, central difference %.12g\n", k, g, fd);
			bad++;
		}
	}
	if (bad == 0)
		std::printf("ok\n");
	return bad != 0;
}
