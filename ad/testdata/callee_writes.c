/* Helpers that write derivatives into memory their caller owns: the
   caller's local arrays, structs and objects get shadows because of what
   the callee does with them, and pointers a helper only reads do not. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static int failures;
static void check(const char *what, double got, double want) {
	double err = fabs(got - want) / fmax(1.0, fabs(want));
	if (!(err <= 1e-6)) { printf("FAIL %s: got %.17g want %.17g\n", what, got, want); failures++; }
	else printf("ok %s: %.17g\n", what, got);
}

/* A local array initialized with constants, scaled by a helper. */
__attribute__((noinline)) void scale(double *a, int n, double s) {
	for (int i = 0; i < n; i++) a[i] *= s;
}
double scaled_local(double x) {
	double a[4] = {1, 2, 3, 4};
	scale(a, 4, x);
	return a[0] + a[1] * a[2] + a[3];
}

/* A double written by a helper, then copied with an 8-byte memcpy. */
__attribute__((noinline)) void put(double *p, double x) { *p = -x * x; }
double copied(double x) {
	double t, u;
	put(&t, x);
	memcpy(&u, &t, sizeof u);
	return u;
}

/* A struct filled by a helper from active inputs. */
typedef struct { double r, theta; int quadrant; } Polar;
__attribute__((noinline)) void to_polar(double x, double y, Polar *p) {
	p->r = sqrt(x * x + y * y);
	p->theta = atan2(y, x);
	p->quadrant = (x < 0) + 2 * (y < 0);
}
double polar_product(double x) {
	Polar p;
	to_polar(x, 0.5 * x + 1, &p);
	return p.r * p.theta + p.quadrant;
}

/* A pointer returned by a helper that allocates and fills it. */
__attribute__((noinline)) double *squares(double x, int n) {
	double *m = malloc(n * sizeof *m);
	for (int i = 0; i < n; i++) m[i] = (i + 1) * x * x;
	return m;
}
double returned_buffer(double x) {
	double *m = squares(x, 3);
	double s = m[0] + m[1] * m[2];
	free(m);
	return s;
}

/* Constant parameters held in a struct passed enzyme_const: the helper
   reads them next to the active array and writes the result. */
typedef struct { const double *w; const double *b; int n; } Params;
__attribute__((noinline)) void affine(const double *w, const double *b, const double *x, double *y, int n) {
	for (int i = 0; i < n; i++) y[i] = w[i] * x[i] + b[i];
}
double objective(const Params *p, const double *x) {
	double y[3];
	affine(p->w, p->b, x, y, p->n);
	double s = 0;
	for (int i = 0; i < p->n; i++) s += y[i] * y[i];
	return s;
}

/* A recursive helper writing through the pointer it passes down. */
__attribute__((noinline)) void powers(double *out, double x, int k) {
	if (k == 0) return;
	out[0] = x * x;
	powers(out + 1, 1.5 * x, k - 1);
}
double recursive_fill(double x) {
	double buf[4] = {0, 0, 0, 0};
	powers(buf, x, 4);
	return buf[0] + buf[1] + buf[2] + buf[3];
}

static double fd(double (*f)(double), double x) {
	double h = 1e-6 * fmax(1, fabs(x));
	return (f(x + h) - f(x - h)) / (2 * h);
}

/* CHECKBOTH(f): f' by reverse and forward mode at a few points, against
   central differences. */
#define CHECKBOTH(f) do { \
		volatile double xs[] = {0.7, 1.3, -0.4}; \
		for (int j = 0; j < 3; j++) { \
			char what[64]; \
			double x = xs[j], want = fd(f, x); \
			snprintf(what, sizeof what, "%s reverse x=%g", #f, x); \
			check(what, __enzyme_autodiff((void *)f, x), want); \
			snprintf(what, sizeof what, "%s forward x=%g", #f, x); \
			check(what, __enzyme_fwddiff((void *)f, x, 1.0), want); \
		} \
	} while (0)

int main(void) {
	CHECKBOTH(scaled_local);
	CHECKBOTH(copied);
	CHECKBOTH(polar_product);
	CHECKBOTH(returned_buffer);
	CHECKBOTH(recursive_fill);

	double w[3] = {0.5, -1.5, 2.0}, b[3] = {0.1, 0.2, -0.3};
	Params p = {w, b, 3};
	double x[3] = {0.3, -0.8, 1.1}, dx[3] = {0};
	__enzyme_autodiff((void *)objective, enzyme_const, &p, enzyme_dup, x, dx);
	for (int i = 0; i < 3; i++) {
		double y = w[i] * x[i] + b[i];
		char what[64];
		snprintf(what, sizeof what, "objective reverse d/dx[%d]", i);
		check(what, dx[i], 2 * y * w[i]);
		double tx[3] = {0}, t;
		tx[i] = 1;
		t = __enzyme_fwddiff((void *)objective, enzyme_const, &p, enzyme_dup, x, tx);
		snprintf(what, sizeof what, "objective forward d/dx[%d]", i);
		check(what, t, 2 * y * w[i]);
	}
	return failures != 0;
}
