/* The program of TestFramedTapesSecondOrder (frametape_test.go), compiled
 * after checkPrelude: forward mode over a gradient whose callee's tape is
 * in the gradient's frame (a call outside loops), in a loop's records (a
 * call in a loop) and in records through recursion: Hessian-vector
 * products against central differences of the gradient. */
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);
__attribute__((noinline)) static double proj(const double *x, int i) { double c = cos(x[i]), s = sin(x[i + 1]); return c * s + x[i] * x[i + 1] * c; }
__attribute__((noinline)) static double rec(const double *x, int n) {
	if (n == 0) return proj(x, 0);
	double s = proj(x, n % 3);
	for (int k = 0; k < 2; k++) s += rec(x + k, n - 1) * x[k];
	return s;
}
int n = 4, depth = 2;
__attribute__((noinline)) double obj(double *x) {
	double s = proj(x, 1); /* outside loops: the tape in the gradient's frame */
	for (int i = 0; i < n; i++) s += proj(x, i) * s * 0.3; /* in the loop's records */
	return s + rec(x, depth);
}
__attribute__((noinline)) void grad(double *x, double *dx) { __enzyme_autodiff((void *)obj, enzyme_dup, x, dx); }
int main(void) {
	double x[6], v[6], g[6], dg[6], gp[6], gm[6];
	for (int i = 0; i < 6; i++) { x[i] = 0.2 + 0.13 * i; v[i] = cos(i * 0.9); }
	for (int i = 0; i < 6; i++) g[i] = dg[i] = 0;
	__enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dup, g, dg);
	double h = 1e-5, xp[6], xm[6];
	for (int i = 0; i < 6; i++) { xp[i] = x[i] + h * v[i]; xm[i] = x[i] - h * v[i]; gp[i] = gm[i] = 0; }
	grad(xp, gp); grad(xm, gm);
	for (int i = 0; i < 6; i++) check("Hv", dg[i], (gp[i] - gm[i]) / (2 * h), 1e-5);
	return failures != 0;
}
