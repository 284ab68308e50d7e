/* The program of TestFramedTapes (frametape_test.go), compiled after
 * checkPrelude. project (a branch, sin and cos of one angle, values cached
 * across the call) is called by the roots: once outside any loop (its tape
 * in the gradient's frame), twice in sequence, under a condition, inside a
 * loop (one tape per iteration, in the loop's records), from a callee's
 * pair (its tape outlives that pair's forward: not framed) and through
 * recursion;
 * scale needs no tape at all. Each gradient against central differences. */
extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) static void project(const double *r, const double *x, double *out) {
	double sq = r[0] * r[0] + r[1] * r[1];
	double a, b;
	if (sq != 0) {
		double th = sqrt(sq), c = cos(th), s = sin(th);
		a = x[0] * c - x[1] * s + r[0] / th * (1 - c);
		b = x[0] * s + x[1] * c + r[1] / th * (1 - c);
	} else { /* the limit of the rotation at a zero angle */
		a = x[0];
		b = x[1];
	}
	out[0] = a / (b + 3);
	out[1] = b * b;
}

__attribute__((noinline)) static double scale(double v, double w) { return v * w + w; }

__attribute__((noinline)) static double nested(const double *r, const double *x) {
	double o[2];
	project(r, x, o);
	return o[0] * o[1];
}

__attribute__((noinline)) static double rec(const double *r, const double *x, int n) {
	double o[2];
	project(r, x, o);
	return n == 0 ? o[0] : o[1] * rec(r, x, n - 1);
}

/* p: r[0], r[1], x[0], x[1]. */
double once(const double *p) {
	double o[2];
	project(p, p + 2, o);
	return o[0] + 2 * o[1];
}

double twice(const double *p) {
	double o[2], q[2];
	project(p, p + 2, o);
	project(o, p + 2, q);
	return scale(o[0] * q[1], p[0]) + q[0];
}

double guarded(const double *p) {
	double o[2] = {p[0], p[1]};
	if (p[2] > 0) project(p, p + 2, o);
	return o[0] * o[1];
}

int rounds = 3; /* not a constant: the loop stays a loop */

double looped(const double *p) {
	double s = 0, y[2] = {p[2], p[3]};
	for (int i = 0; i < rounds; i++) {
		double o[2];
		project(p, y, o);
		y[0] = o[0];
		y[1] = 0.5 * o[1];
		s += o[0];
	}
	return s;
}

double through(const double *p) { return nested(p, p + 2) + rec(p, p + 2, 2); }

/* GRADIENT_CHECK checks f's gradient at p0 (a macro: the function
 * differentiated is known at each call). */
#define GRADIENT_CHECK(what, f, p0)                                      \
	do {                                                               \
		double p[4], dp[4] = {0, 0, 0, 0};                             \
		for (int i = 0; i < 4; i++) p[i] = (p0)[i];                    \
		__enzyme_autodiff((void *)f, enzyme_dup, p, dp);               \
		for (int i = 0; i < 4; i++) {                                  \
			double save = p[i], h = 1e-6;                              \
			p[i] = save + h;                                           \
			double fp = f(p);                                          \
			p[i] = save - h;                                           \
			double fm = f(p);                                          \
			p[i] = save;                                               \
			check(what, dp[i], (fp - fm) / (2 * h), 1e-6);             \
		}                                                              \
	} while (0)

int main(void) {
	const double at[4] = {0.3, -0.5, 0.8, 0.4}, zero[4] = {0, 0, 0.8, 0.4}, neg[4] = {0.3, -0.5, -0.8, 0.4};
	GRADIENT_CHECK("once", once, at);
	GRADIENT_CHECK("once, zero angle", once, zero);
	GRADIENT_CHECK("twice", twice, at);
	GRADIENT_CHECK("guarded, taken", guarded, at);
	GRADIENT_CHECK("guarded, not taken", guarded, neg);
	GRADIENT_CHECK("looped", looped, at);
	GRADIENT_CHECK("through a pair and recursion", through, at);
	return failures != 0;
}
