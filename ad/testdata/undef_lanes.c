/* undefLanesSrc differentiates the vector shapes the SLP and loop
 * vectorizers make out of scalar code, whose unused lanes are undef or
 * poison (a splat of a scalar, a shuffle with undef mask elements, one
 * lane of a pair, a <4 x float>, a reduction), in reverse mode against
 * central differences and in forward mode against the reverse gradient.
 * (undefLanesSrc in undeflanes_test.go; compiled after checkPrelude) */
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
/* A splat of x, divided by <3, 5>, one lane times the other. */
double quot2(double x) { return (x / 3.0) * (x / 5.0); }
double quot4(double x) { return (x / 3.0) * (x / 5.0) * (x / 7.0) * (x / 11.0); }
float quotf(float x) { return (x / 3.0f) * (x / 5.0f) * (x / 7.0f) * (x / 11.0f); }
/* A pair of lanes and a scalar. */
__attribute__((noinline)) double dot3(double *a) { return a[0] * a[3] + a[1] * a[4] + a[2] * a[5]; }
/* Floats in <4 x float>, lanes swapped. */
__attribute__((noinline)) double dotf(double *a) {
	float u[4], v[4];
	for (int i = 0; i < 4; i++) { u[i] = (float)a[i] / 3.0f; v[i] = (float)a[i + 1] * 2.0f; }
	return u[0] * v[1] + u[1] * v[0] + u[2] * v[3] + u[3] * v[2];
}
/* A complex product: lanes swapped and negated. */
__attribute__((noinline)) double cmul(double *a) {
	double re = a[0] * a[2] - a[1] * a[3], im = a[0] * a[3] + a[1] * a[2];
	return re * re + 3 * im;
}
/* A loop scaled by a splatted scalar, then reduced. */
__attribute__((noinline)) double scaled(double *a) {
	double out[6], s = 0;
	for (int i = 0; i < 6; i++) out[i] = a[i] * a[0] / (i + 3.0);
	for (int i = 0; i < 6; i++) s += out[i] * out[i];
	return s;
}
__attribute__((noinline)) double inlined(double *a) { return quot2(a[0]) + quot4(a[1]) + quotf(a[2]) * a[3]; }
typedef double (*fn)(double *);
enum { N = 6 };
static double tol = 1e-6, step = 1e-6;
/* fdcheck(name, f, x0, dx, dt): the reverse gradient dx of f at x0 against
   central differences, and the forward tangents dt[i] (of unit tangent i)
   against dx. */
static void fdcheck(const char *name, fn f, const double *x0, const double *dx, const double *dt) {
	for (int i = 0; i < N; i++) {
		double x[N], h = step * fmax(1, fabs(x0[i]));
		memcpy(x, x0, sizeof x); x[i] += h; double fp = f(x);
		memcpy(x, x0, sizeof x); x[i] -= h; double fm = f(x);
		char what[64];
		snprintf(what, sizeof what, "%s[%d]", name, i);
		check(what, dx[i], (fp - fm) / (2 * h), tol);
		snprintf(what, sizeof what, "%s forward[%d]", name, i);
		check(what, dt[i], dx[i], tol);
	}
}
#define GRADCHECK(f) do { \
		double xc[N], dx[N] = {0}, dt[N]; \
		memcpy(xc, x, sizeof xc); \
		__enzyme_autodiff((void *)f, enzyme_dup, xc, dx); \
		for (int i = 0; i < N; i++) { \
			double t[N] = {0}; \
			t[i] = 1; \
			memcpy(xc, x, sizeof xc); \
			dt[i] = __enzyme_fwddiff((void *)f, enzyme_dup, xc, t); \
		} \
		fdcheck(#f, f, x, dx, dt); \
	} while (0)
int main(void) {
	const double x[N] = {1.5, -0.7, 2.2, 0.3, 1.1, -1.9};
	for (int k = 0; k < 2; k++) {
		double v = x[k];
		CHECK("quot2", __enzyme_autodiff((void *)quot2, v), 2 * v / 15);
		CHECK("quot2 forward", __enzyme_fwddiff((void *)quot2, v, 1.0), 2 * v / 15);
		CHECK("quot4", __enzyme_autodiff((void *)quot4, v), 4 * v * v * v / 1155);
		CHECK("quot4 forward", __enzyme_fwddiff((void *)quot4, v, 1.0), 4 * v * v * v / 1155);
		check("quotf", __enzyme_autodiff((void *)quotf, (float)v), 4 * v * v * v / 1155, 1e-6);
	}
	GRADCHECK(dot3);
	GRADCHECK(cmul);
	GRADCHECK(scaled);
	tol = 1e-3, step = 1e-2; /* single precision */
	GRADCHECK(dotf);
	GRADCHECK(inlined);
	return failures != 0;
}
