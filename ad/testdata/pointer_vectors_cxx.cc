/* The program of TestPointerVectorShadowsCXX (ptrvectors_test.go), compiled
   after cxxPrelude: std::vector<double>s built, std::swap'ed and moved inside
   the differentiated function. At -O2 the swap and the move copy the
   vectors' begin/end pointers as <2 x double*>; the shadow vectors must be
   swapped and moved with them. Reverse and forward mode against central
   differences. */
#include <utility>
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) static void exchange(std::vector<double> &a, std::vector<double> &b) { std::swap(a, b); }

struct holder {
	std::vector<double> v;
};
__attribute__((noinline)) static void take(holder &h, std::vector<double> &&v) { h.v = std::move(v); }

double swapped(double *x, int n) {
	std::vector<double> a(x, x + n), b(n);
	for (int i = 0; i < n; i++) b[i] = std::sin(x[i]) * (i + 1);
	double s = 0;
	for (int k = 0; k < 3; k++) {
		exchange(a, b);
		s += a[k] * (k + 2) + b[k] * b[k];
	}
	holder h;
	take(h, std::move(a));
	for (int i = 0; i < n; i++) s += h.v[i] * x[i];
	return s;
}

int main() {
	const int n = 4;
	double x[n] = {0.3, -0.7, 1.1, 0.45}, dx[n] = {0};
	__enzyme_autodiff((void *)swapped, enzyme_dup, x, dx, enzyme_const, n);
	fdcheck("reverse", swapped, x, n, dx);
	for (int i = 0; i < n; i++) {
		double t[n] = {0}, h = 1e-6, s = x[i];
		t[i] = 1;
		double got = __enzyme_fwddiff((void *)swapped, enzyme_dup, x, t, enzyme_const, n);
		x[i] = s + h; double fp = swapped(x, n);
		x[i] = s - h; double fm = swapped(x, n);
		x[i] = s;
		char what[32];
		std::snprintf(what, sizeof what, "forward %d", i);
		check(what, got, (fp - fm) / (2 * h));
	}
	std::printf("%s\n", failures ? "FAILED" : "all ok");
	return failures != 0;
}
