/* Callees given a local std::vector by reference (TestPrivateContents in
 * privcontents_test.go). evolve writes y while reading x through another
 * vector's data pointer: where every call passes a y whose buffer only the
 * caller's vector holds (last), the derivative reloads x[i] in the reverse
 * sweep instead of caching it. Where x and y are the same vector (self),
 * the buffer is also seen through a plain pointer (viewed, or passed as an
 * argument of its own: passed), or the callee
 * keeps the buffer's address (kept), the reads see the writes and must be
 * cached: the gradients are still right. */
#include <cstddef>
__attribute__((noinline)) void evolve(const std::vector<double> &x, std::vector<double> &y, int s) {
	size_t n = y.size();
	for (int k = 0; k < s; k++)
		for (size_t i = 1; i < n; i++) y[i] += 0.3 * x[i] * y[i - 1];
}
static double last(const std::vector<double> &x, int s) {
	std::vector<double> y(x.size(), 1.0);
	evolve(x, y, s);
	return y.back();
}
static double self(const std::vector<double> &x, int s) {
	std::vector<double> y(x);
	evolve(y, y, s);
	return y.back();
}
struct View {
	const double *p;
};
__attribute__((noinline)) void evolve_view(const View &v, std::vector<double> &y, int s) {
	size_t n = y.size();
	for (int k = 0; k < s; k++)
		for (size_t i = 1; i < n; i++) y[i] += 0.3 * v.p[i] * y[i - 1];
}
static double viewed(const std::vector<double> &x, int s) {
	std::vector<double> y(x);
	View v{y.data()};
	evolve_view(v, y, s);
	return y.back();
}
__attribute__((noinline)) void evolve_raw(const double *p, std::vector<double> &y, int s) {
	size_t n = y.size();
	for (int k = 0; k < s; k++)
		for (size_t i = 1; i < n; i++) y[i] += 0.3 * p[i] * y[i - 1];
}
static double passed(const std::vector<double> &x, int s) {
	std::vector<double> y(x);
	evolve_raw(y.data(), y, s);
	return y.back();
}
struct Keeper {
	const double *p;
};
__attribute__((noinline)) void evolve_keep(Keeper *kp, std::vector<double> &y, int s) {
	kp->p = y.data();
	size_t n = y.size();
	for (int k = 0; k < s; k++)
		for (size_t i = 1; i < n; i++) y[i] += 0.3 * kp->p[i] * y[i - 1];
}
static double kept(const std::vector<double> &x, int s) {
	std::vector<double> y(x);
	Keeper k{nullptr};
	evolve_keep(&k, y, s);
	return y.back();
}
static double lastAt(double *x, int n) { return last(std::vector<double>(x, x + n), 3); }
static double selfAt(double *x, int n) { return self(std::vector<double>(x, x + n), 3); }
static double viewedAt(double *x, int n) { return viewed(std::vector<double>(x, x + n), 3); }
static double keptAt(double *x, int n) { return kept(std::vector<double>(x, x + n), 3); }
static double passedAt(double *x, int n) { return passed(std::vector<double>(x, x + n), 3); }
/* GRADCHECK(f): the gradient of f at a fixed x against f##At's differences. */
#define GRADCHECK(f) do { \
		const int N = 6; \
		std::vector<double> x(N), dx(N, 0.0); \
		for (int i = 0; i < N; i++) x[i] = 0.4 + 0.15 * i; \
		__enzyme_autodiff((void *)f, enzyme_dup, &x, &dx, enzyme_const, 3); \
		fdcheck(#f, f##At, x.data(), N, dx.data()); \
	} while (0)
int main() {
	GRADCHECK(last);
	GRADCHECK(self);
	GRADCHECK(viewed);
	GRADCHECK(kept);
	GRADCHECK(passed);
	return failures != 0;
}
