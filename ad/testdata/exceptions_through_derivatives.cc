/* The program of TestExceptionsThroughDerivatives (exceptions_test.go):
 * functions differentiated that may throw, called by roots the caller
 * invokes in try blocks. An exception thrown in the derivative's forward
 * sweep reaches the caller's handler, as the primal's does: through framed
 * recursion (each call's tape a field of its caller's loop records, a
 * std::vector's destructor on the way out), through a call inside a loop
 * (its tape in the loop's records), from split mode's augmented forward
 * and from forward mode. After each throw the same derivatives, run again
 * on inputs that do not throw, match central differences: nothing the
 * escaped run left behind (tape stack, shadow set) disturbs them. noexcept
 * wraps a call that may throw (its landing pad terminates); a vector of
 * vectors is filled by library code that catches and rethrows (catch (...)
 * around its elements' construction at -O0): neither stops the link. A
 * root choosing its function at run time (a dispatch over two candidates)
 * and one returning the primal with the derivative throw to the handler
 * too. */
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>
extern "C" {
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
}
static int failures;
static void check(const char *what, double got, double want, double tol) {
	double err = std::fabs(got - want) / std::fmax(1.0, std::fabs(want));
	if (!(err <= tol)) {
		printf("FAIL %s: got %.17g want %.17g\n", what, got, want);
		failures++;
	} else
		printf("ok %s: %.17g\n", what, got);
}

__attribute__((noinline)) double rec(const double *x, int n) {
	std::vector<double> tmp(3, x[0]); /* a cleanup on the unwinding path */
	if (x[0] > 100) throw std::runtime_error("too big");
	if (n == 0) return std::sin(x[0]) * tmp[1];
	double y[2] = {x[0] * 1.5, x[1]};
	double r = 0;
	for (int k = 0; k < 2; k++) r += rec(y, n - 1) * x[k];
	return r;
}

__attribute__((noinline)) double term(double v, int i) {
	if (v < -50) throw std::domain_error("too small");
	return std::cos(v) * (i + 1);
}

int depth = 3, terms = 5; /* not constants: the loops and recursion stay */

double framed(const double *x) { return rec(x, depth); }

double looped(const double *x) {
	double s = 0;
	for (int i = 0; i < terms; i++) s += term(x[0] - 3 * i, i) * x[1];
	return s;
}

void split(const double *x, double *out) { *out = rec(x, depth) * x[1]; }

__attribute__((noinline)) double guarded(double v) noexcept { return term(v, 2); }

double wrapped(const double *x) { return guarded(x[0]) * x[1]; }

double nested(const double *x) {
	std::vector<double> row;
	for (int i = 0; i < 4; i++) row.push_back(x[0] * i + x[1]);
	std::vector<std::vector<double>> rows(3, row);
	double s = 0;
	for (auto &r : rows)
		for (double v : r) s += std::sin(v);
	return s;
}

/* GRADIENT_CHECK checks f's gradient and tangents at x0 (a macro: the
 * function differentiated is known at each call). */
#define GRADIENT_CHECK(what, f, x0)                                                       \
	do {                                                                              \
		double x[2] = {(x0)[0], (x0)[1]}, dx[2] = {0, 0};                             \
		__enzyme_autodiff((void *)f, enzyme_dup, x, dx);                              \
		for (int i = 0; i < 2; i++) {                                                 \
			double h = 1e-6, s = x[i];                                                \
			x[i] = s + h;                                                             \
			double fp = f(x);                                                         \
			x[i] = s - h;                                                             \
			double fm = f(x);                                                         \
			x[i] = s;                                                                 \
			check(what, dx[i], (fp - fm) / (2 * h), 1e-6);                            \
			double t[2] = {0, 0};                                                     \
			t[i] = 1;                                                                 \
			check(what, __enzyme_fwddiff((void *)f, enzyme_dup, x, t), dx[i], 1e-9); \
		}                                                                             \
	} while (0)

__attribute__((noinline)) double sq(double v) {
	if (v > 10) throw std::runtime_error("sq");
	return v * v;
}
__attribute__((noinline)) double sine(double v) {
	if (v > 10) throw std::runtime_error("sine");
	return std::sin(v);
}
struct WithPrimal {
	double d, primal;
};
extern "C" WithPrimal __enzyme_autodiff_primal(void *, ...) __asm__("__enzyme_autodiff");
extern "C" int enzyme_primal_return;

int main(int argc, char **) {
	const double at[2] = {0.7, 0.3}, big[2] = {30, 0.3}, low[2] = {-40, 0.3};
	int caught = 0;
	for (int round = 0; round < 3; round++) {
		GRADIENT_CHECK("framed", framed, at);
		GRADIENT_CHECK("looped", looped, at);
		GRADIENT_CHECK("noexcept wrapper", wrapped, at);
		GRADIENT_CHECK("rethrowing handlers", nested, at);
		double x[2] = {big[0], big[1]}, dx[2] = {0, 0};
		try {
			__enzyme_autodiff((void *)framed, enzyme_dup, x, dx);
			check("framed threw", 0, 1, 0);
		} catch (const std::runtime_error &) {
			caught++;
		}
		x[0] = low[0];
		try {
			__enzyme_autodiff((void *)looped, enzyme_dup, x, dx);
			check("looped threw", 0, 1, 0);
		} catch (const std::domain_error &) {
			caught++;
		}
		try {
			double t[2] = {1, 0};
			__enzyme_fwddiff((void *)looped, enzyme_dup, x, t);
			check("forward mode threw", 0, 1, 0);
		} catch (const std::domain_error &) {
			caught++;
		}
		double o = 0, d_o = 0;
		x[0] = big[0];
		try {
			void *tape = __enzyme_augmentfwd((void *)split, enzyme_dup, x, dx, enzyme_dup, &o, &d_o);
			(void)tape;
			check("augmented forward threw", 0, 1, 0);
		} catch (const std::runtime_error &) {
			caught++;
		}
		/* split mode on inputs that do not throw: the tape survives until
		 * the reverse */
		double y[2] = {at[0], at[1]}, dy[2] = {0, 0}, gy[2] = {0, 0};
		void *tape = __enzyme_augmentfwd((void *)split, enzyme_dup, y, dy, enzyme_dup, &o, &d_o);
		d_o = 1;
		__enzyme_reverse((void *)split, enzyme_dup, y, dy, enzyme_dup, &o, &d_o, tape);
		__enzyme_autodiff((void *)framed, enzyme_dup, y, gy);
		check("split d/dx0", dy[0], gy[0] * y[1], 1e-9);
		check("split d/dx1", dy[1], gy[1] * y[1] + rec(y, depth), 1e-9);
	}
	for (int k = 0; k < 4; k++) {
		double v = k < 2 ? 0.5 : 20;
		try {
			double d = __enzyme_autodiff((void *)(argc + k % 2 > 1 ? sq : sine), v);
			check("dispatched", d, k % 2 ? 1.0 : std::cos(0.5), 1e-15);
			WithPrimal r = __enzyme_autodiff_primal((void *)sq, enzyme_primal_return, v);
			check("with primal", r.d + r.primal, 1.25, 1e-15);
			if (k >= 2) check("dispatched threw", 0, 1, 0);
		} catch (const std::runtime_error &) {
			caught++;
		}
	}
	check("exceptions caught", caught, 14, 0);
	return failures != 0;
}
