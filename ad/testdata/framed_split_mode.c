/* The program of TestFramedTapesSplitMode (frametape_test.go), compiled
 * after checkPrelude and det_of_minor.c: split mode (__enzyme_augmentfwd, then
 * __enzyme_reverse) of functions whose callees run in loops and recurse,
 * so that the callees' tapes are fields of loop records the split tape
 * holds until the reverse.
 *   det: the determinant by minors at sizes 1 to 5, two tapes alive at
 *     once, reversed in the opposite order, the stack reused in between.
 *   looped: calls in a loop left by a break, a recursion of varying depth
 *     with an early return, a zero-trip loop (n = 0); its tape in the
 *     caller's buffer (enzyme_allocated, enzyme_tape).
 * Each gradient against central differences. */
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed, enzyme_allocated, enzyme_tape;
void __enzyme_augmentfwd_buffer(void *, ...) __asm__("__enzyme_augmentfwd");
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
double __enzyme_autodiff(void *, ...);
enum { maxN = 5 };
/* out[0] = det(a) * scale; writes through a pointer (split mode returns void) */
__attribute__((noinline)) void det(const double *a, long n, double *out) {
	long r[maxN + 1], c[maxN + 1];
	for (long i = 0; i < n; i++) r[i] = c[i] = i + 1;
	r[n] = c[n] = 0;
	*out = det_of_minor(a, n, n, r, c);
}
__attribute__((noinline)) static double leaf(const double *x, int i) { return sin(x[i]) * x[i + 1]; }
/* calls in a loop, with an early exit, and a recursion of varying depth */
__attribute__((noinline)) static double deep(const double *x, int d) {
	if (d <= 0) return cos(x[0]);
	if (x[d % 3] > 2.5) return x[1] * d; /* early return */
	return x[d % 3] * deep(x, d - 1 - (d & 1));
}
__attribute__((noinline)) void looped(const double *x, int n, double *out) {
	double s = 0;
	for (int i = 0; i < n; i++) {
		double v = leaf(x, i);
		if (v > 10) break;
		s += v * deep(x + i, i + 2);
	}
	*out = s;
}
static double fdet(const double *a, long n) { double o; det(a, n, &o); return o; }
static double flooped(const double *x, int n) { double o; looped(x, n, &o); return o; }
int main(void) {
	double a[25], da[25], a2[25], da2[25];
	for (int i = 0; i < 25; i++) a[i] = a2[i] = 0.3 + 0.1 * i + 0.05 * (i * i % 7);
	for (long n = 1; n <= maxN; n++) {
		double o = 0, d_o = 0, o2 = 0, d_o2 = 0;
		for (int i = 0; i < 25; i++) da[i] = da2[i] = 0;
		/* two tapes alive at once, reversed in the opposite order */
		void *t1 = __enzyme_augmentfwd((void *)det, enzyme_dup, a, da, enzyme_const, n, enzyme_dup, &o, &d_o);
		void *t2 = __enzyme_augmentfwd((void *)det, enzyme_dup, a2, da2, enzyme_const, n, enzyme_dup, &o2, &d_o2);
		double scratch[64];
		for (int i = 0; i < 64; i++) scratch[i] = i * 1.5; /* the stack is reused between the halves */
		d_o2 = 2.0;
		__enzyme_reverse((void *)det, enzyme_dup, a2, da2, enzyme_const, n, enzyme_dup, &o2, &d_o2, t2);
		d_o = 1.0;
		__enzyme_reverse((void *)det, enzyme_dup, a, da, enzyme_const, n, enzyme_dup, &o, &d_o, t1);
		check("det value", o, fdet(a, n), 1e-12);
		for (int i = 0; i < n * n; i++) {
			double s = a[i], h = 1e-6;
			a[i] = s + h; double fp = fdet(a, n);
			a[i] = s - h; double fm = fdet(a, n);
			a[i] = s;
			char what[64];
			snprintf(what, sizeof what, "det n=%ld da[%d]", n, i);
			check(what, da[i], (fp - fm) / (2 * h), 1e-6);
			snprintf(what, sizeof what, "det n=%ld da2[%d]", n, i);
			check(what, da2[i], 2 * (fp - fm) / (2 * h), 1e-6);
		}
		(void)scratch;
	}
	for (int n = 0; n <= 4; n++) {
		double x[8], dx[8] = {0}, o = 0, d_o = 0;
		for (int i = 0; i < 8; i++) x[i] = 0.4 + 0.2 * i;
		if (n == 3) x[5] = 2.7; /* the early return at some depth */
		double buffer[32];
		__enzyme_augmentfwd_buffer((void *)looped, enzyme_allocated, (int)sizeof buffer, enzyme_tape, buffer, enzyme_dup, x, dx, enzyme_const, n, enzyme_dup, &o, &d_o);
		double junk[64]; for (int i = 0; i < 64; i++) junk[i] = i; (void)junk;
		d_o = 1.0;
		__enzyme_reverse((void *)looped, enzyme_allocated, (int)sizeof buffer, enzyme_tape, buffer, enzyme_dup, x, dx, enzyme_const, n, enzyme_dup, &o, &d_o);
		for (int i = 0; i < 8; i++) {
			double s = x[i], h = 1e-6;
			x[i] = s + h; double fp = flooped(x, n);
			x[i] = s - h; double fm = flooped(x, n);
			x[i] = s;
			char what[64];
			snprintf(what, sizeof what, "looped n=%d dx[%d]", n, i);
			check(what, dx[i], (fp - fm) / (2 * h), 1e-6);
		}
	}
	return failures != 0;
}
