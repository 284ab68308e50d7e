/* The program of TestExternalPointersInActiveMemory (forward_test.go), compiled after memoryPrelude. */
double __enzyme_fwddiff(void *, ...);
struct rec { double *data; const char *home; const int *perm; double scale; };
static const int perm[4] = {2, 0, 3, 1};
__attribute__((noinline)) void fill(struct rec *r, double *x) {
	r->data = x;
	r->home = getenv("HOME");
	r->perm = perm;
	r->scale = x[0] * x[1];
}
__attribute__((noinline)) double use(double *x, int n) {
	struct rec r;
	fill(&r, x);
	double s = r.home ? 1 : 2;
	for (int i = 0; i < n; i++) s += r.scale * sin(r.data[r.perm[i]]) * r.data[i];
	return s;
}
int main(void) {
	enum { N = 4 };
	double x[N] = {0.3, -0.7, 1.1, 0.2}, v[N] = {1, 2, -1, 0.5};
	GRADCHECK(use);
	double p[N], m[N], h = 1e-6;
	for (int i = 0; i < N; i++) { p[i] = x[i] + h * v[i]; m[i] = x[i] - h * v[i]; }
	check("use jvp", __enzyme_fwddiff((void *)use, enzyme_dup, x, v, enzyme_const, N), (use(p, N) - use(m, N)) / (2 * h), 1e-6);
	check("perm untouched", perm[0] * 1000 + perm[1] * 100 + perm[2] * 10 + perm[3], 2031, 0);
	return failures != 0;
}
