/* The program of TestShadowlessPointerInActiveMemory (forward_test.go), compiled after checkPrelude. */
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
struct pair { double *w; double *c; };
__attribute__((noinline)) double use(struct pair *p, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += p->w[i] * p->w[i] * p->c[i];
	return s;
}
double f(double *w, double *c, int n) {
	struct pair *p = __builtin_alloca(sizeof *p);
	p->w = w;
	p->c = c;
	return use(p, n);
}
int main(void) {
	double w[3] = {0.5, -1.25, 2}, c[3] = {3, -1, 0.25}, dw[3] = {0};
	__enzyme_autodiff((void *)f, enzyme_dup, w, dw, enzyme_const, c, enzyme_const, 3);
	for (int i = 0; i < 3; i++) {
		double t[3] = {0};
		t[i] = 1;
		CHECK("gradient", dw[i], 2 * w[i] * c[i]);
		CHECK("tangent", __enzyme_fwddiff((void *)f, enzyme_dup, w, t, enzyme_const, c, enzyme_const, 3), 2 * w[i] * c[i]);
	}
	CHECK("c untouched", c[0] * 100 + c[1] * 10 + c[2], 290.25);
	return failures != 0;
}
