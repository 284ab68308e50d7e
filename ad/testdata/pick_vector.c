/* fmax/fmin routing where LLVM vectorizes the calls (llvm.maxnum/minnum on
 * vectors of double and float) with an infinite adjoint in one lane, ties,
 * NaNs and signed zeros; fmaxl; a NaN adjoint; values exact
 * (TestPickVectorRun, pick_test.go; compiled after checkPrelude). */
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
double __enzyme_autodiff_d(void *, ...) __asm__("__enzyme_autodiff");
long double __enzyme_autodiff_l(void *, ...) __asm__("__enzyme_autodiff");
double __enzyme_fwddiff(void *, ...);
double W[16];
/* z[i] = fmax(x[i], x[i + h]) and fmin, weighted by W (one weight infinite) */
__attribute__((noinline)) double vmax(double *x, int n) {
	int h = n / 2;
	double s = 0;
	for (int i = 0; i < h; i++) x[i] = fmax(x[i], x[i + h]);
	for (int i = 0; i < h; i++) s += W[i] * x[i];
	return s;
}
__attribute__((noinline)) double vmin(double *x, int n) {
	int h = n / 2;
	double s = 0;
	for (int i = 0; i < h; i++) x[i] = fmin(x[i + h], x[i]);
	for (int i = 0; i < h; i++) s += W[i] * x[i];
	return s;
}
float WF[16];
__attribute__((noinline)) float vmaxf(float *x, int n) {
	int h = n / 2;
	float s = 0;
	for (int i = 0; i < h; i++) x[i] = fmaxf(x[i], x[i + h]);
	for (int i = 0; i < h; i++) s += WF[i] * x[i];
	return s;
}
__attribute__((noinline)) long double maxl(long double a, long double b) { return 3 * fmaxl(a, b); }
double NANW = NAN; /* not a constant: NAN * v would fold to NAN */
__attribute__((noinline)) double nanmax(double a, double b) { return NANW * fmax(a, b); }
__attribute__((noinline)) double triple(double a) { return 3 * a; }
__attribute__((noinline)) double third(double a) { return a / 3; }
__attribute__((noinline)) double zmax(double a, double b) { return 3 * fmax(a, b); }
static void exact(const char *what, double got, double want) {
	int same = got == want || (isnan(got) && isnan(want));
	if (!same || signbit(got) != signbit(want)) { printf("FAIL %s: got %.17g want %.17g\n", what, got, want); failures++; }
	else printf("ok %s\n", what);
}
int main(void) {
	enum { N = 16, H = N / 2 };
	/* lanes: 0 tie, 1 x wins, 2 y wins, 3 NaN x, 4 NaN y, 5 -0 vs +0, 6 +inf x, 7 -inf y */
	double x0[N] = {2, 5, 1, NAN, 4, -0.0, INFINITY, 3, 2, 1, 5, 6, NAN, 0.0, 1, -INFINITY};
	for (int i = 0; i < H; i++) W[i] = i == 1 || i == 4 ? HUGE_VAL : i + 1, WF[i] = W[i];
	/* fmax takes x on ties (x >= y) and where y is NaN */
	int takesX[H] = {1, 1, 0, 0, 1, 1, 1, 1};
	double x[N], dx[N];
	memcpy(x, x0, sizeof x);
	memset(dx, 0, sizeof dx);
	__enzyme_autodiff((void *)vmax, enzyme_dup, x, dx, enzyme_const, N);
	for (int i = 0; i < H; i++) {
		char what[64];
		snprintf(what, sizeof what, "vmax dx[%d]", i);
		exact(what, dx[i], takesX[i] ? W[i] : 0);
		snprintf(what, sizeof what, "vmax dx[%d]", i + H);
		exact(what, dx[i + H], takesX[i] ? 0 : W[i]);
	}
	/* fmin(x[i + h], x[i]): the first argument on ties (lanes 0, 5), where
	   the second is NaN (lane 3) and where it is smaller (1, 6, 7) */
	int takesFirst[H] = {1, 1, 0, 1, 0, 1, 1, 1};
	memcpy(x, x0, sizeof x);
	memset(dx, 0, sizeof dx);
	__enzyme_autodiff((void *)vmin, enzyme_dup, x, dx, enzyme_const, N);
	for (int i = 0; i < H; i++) {
		char what[64];
		snprintf(what, sizeof what, "vmin dx[%d]", i + H);
		exact(what, dx[i + H], takesFirst[i] ? W[i] : 0);
		snprintf(what, sizeof what, "vmin dx[%d]", i);
		exact(what, dx[i], takesFirst[i] ? 0 : W[i]);
	}
	float xf[N], dxf[N] = {0};
	for (int i = 0; i < N; i++) xf[i] = x0[i];
	__enzyme_autodiff((void *)vmaxf, enzyme_dup, xf, dxf, enzyme_const, N);
	for (int i = 0; i < H; i++) {
		char what[64];
		snprintf(what, sizeof what, "vmaxf dx[%d]", i);
		exact(what, dxf[i], takesX[i] ? WF[i] : 0);
		snprintf(what, sizeof what, "vmaxf dx[%d]", i + H);
		exact(what, dxf[i + H], takesX[i] ? 0 : WF[i]);
	}
	volatile long double la = 1.5L, lb = 2.5L;
	exact("maxl", (double)__enzyme_autodiff_l((void *)maxl, enzyme_out, la, enzyme_const, lb), 0);
	exact("maxl b", (double)__enzyme_autodiff_l((void *)maxl, enzyme_const, la, enzyme_out, lb), 3);
	volatile double a = 1.5, b = -0.5, nz = -0.0, pz = 0.0;
	/* a NaN adjoint reaches the returned argument only */
	exact("nan adjoint, other", __enzyme_autodiff_d((void *)nanmax, enzyme_const, a, enzyme_out, b), 0);
	exact("nan adjoint, picked", __enzyme_autodiff_d((void *)nanmax, enzyme_out, a, enzyme_const, b), NAN);
	/* fmax(-0, +0) compares equal: the first argument takes it */
	exact("zero tie first", __enzyme_autodiff_d((void *)zmax, enzyme_out, nz, enzyme_const, pz), 3);
	exact("zero tie second", __enzyme_autodiff_d((void *)zmax, enzyme_const, nz, enzyme_out, pz), 0);
	exact("fwd nan tangent other", __enzyme_fwddiff((void *)zmax, a, 1.0, b, NAN), 3);
	/* fmax(NaN, NaN) takes the first; 3 fmax(a, b): no 0 times the NaN */
	exact("fwd both nan", __enzyme_fwddiff((void *)zmax, (double)NAN, 1.0, (double)NAN, 2.0), 3);
	/* the constant factor's zero tangent is not multiplied by inf */
	exact("fwd 3a at inf", __enzyme_fwddiff((void *)triple, (double)INFINITY, 1.0), 3);
	exact("fwd a/3 at inf", __enzyme_fwddiff((void *)third, (double)INFINITY, 3.0), 1);
	return failures != 0;
}
