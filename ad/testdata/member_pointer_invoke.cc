// Class methods called through C++ member-function pointers inside the
// differentiated function, as boost odeint calls its resize_impl: through
// std::bind(&C::m, std::ref(*this), _1), std::invoke(&C::m, obj, ...) and
// a member pointer kept in a local variable. The call site dispatches on
// the pointer ({ptr, adj}: a virtual and a non-virtual arm joined by a
// phi); the callee writes derivatives through its arguments and `this`.
// Reverse mode against central differences, forward mode against reverse.
#include <cmath>
#include <cstdio>
#include <functional>
extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct Stepper {
	double state[3];
	double rate;
	bool resize(const double *x) { // reached through std::bind
		for (int i = 0; i < 3; i++) state[i] = x[i] * rate;
		return true;
	}
	double energy(const double *x) const { // reached through std::invoke
		double s = 0;
		for (int i = 0; i < 3; i++) s += state[i] * std::sin(x[i]);
		return s;
	}
	virtual double scale(double v) const { return v * rate; } // a virtual member pointer
	virtual ~Stepper() {}
};

struct Faster : Stepper {
	double scale(double v) const override { return v * rate * rate; }
};

template <class F> __attribute__((noinline)) bool adjust(F f, const double *x) { return f(x); }

double objective(Stepper *st, const double *x) {
	using namespace std::placeholders;
	adjust(std::bind(&Stepper::resize, std::ref(*st), _1), x);
	double e = std::invoke(&Stepper::energy, *st, x);
	double (Stepper::*pm)(double) const = &Stepper::scale;
	return (st->*pm)(e) + e * x[0];
}

static int failures;

static double value(Stepper *st, const double *x) { return objective(st, x); }

template <class T> static void check(T *st) {
	double x[3] = {0.3, -0.7, 1.1}, dx[3] = {0, 0, 0};
	T shadow = *st;
	for (int i = 0; i < 3; i++) shadow.state[i] = 0;
	shadow.rate = 0;
	__enzyme_autodiff((void *)objective, enzyme_dup, st, &shadow, enzyme_dup, x, dx);
	for (int i = 0; i < 3; i++) {
		double save = x[i], h = 1e-6;
		x[i] = save + h;
		double fp = value(st, x);
		x[i] = save - h;
		double fm = value(st, x);
		x[i] = save;
		double fd = (fp - fm) / (2 * h);
		if (!(std::fabs(dx[i] - fd) <= 1e-6 * std::fmax(1, std::fabs(fd)))) {
			std::printf("FAIL d/dx[%d]: got %.17g want %.17g\n", i, dx[i], fd);
			failures++;
		}
	}
	// Forward mode: the tangent along each x[i] is the reverse's dx[i].
	for (int i = 0; i < 3; i++) {
		double tx[3] = {0, 0, 0};
		tx[i] = 1;
		T tst = *st;
		for (int k = 0; k < 3; k++) tst.state[k] = 0;
		tst.rate = 0;
		double d = __enzyme_fwddiff((void *)objective, enzyme_dup, st, &tst, enzyme_dup, x, tx);
		if (!(std::fabs(d - dx[i]) <= 1e-9 * std::fmax(1, std::fabs(dx[i])))) {
			std::printf("FAIL forward d/dx[%d]: got %.17g want %.17g\n", i, d, dx[i]);
			failures++;
		}
	}
	// rate enters through resize (state = x*rate), energy and scale.
	double r = st->rate, h = 1e-6;
	st->rate = r + h;
	double fp = value(st, x);
	st->rate = r - h;
	double fm = value(st, x);
	st->rate = r;
	double fd = (fp - fm) / (2 * h);
	if (!(std::fabs(shadow.rate - fd) <= 1e-6 * std::fmax(1, std::fabs(fd)))) {
		std::printf("FAIL d/drate: got %.17g want %.17g\n", shadow.rate, fd);
		failures++;
	}
}

int main() {
	Stepper a;
	a.rate = 0.8;
	Faster b;
	b.rate = 1.3;
	check(&a);
	check(&b);
	if (failures == 0)
		std::printf("ok\n");
	return failures != 0;
}
