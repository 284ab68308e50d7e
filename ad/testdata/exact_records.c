/* The program of TestExactRecordBuffers (exactrecords_test.go), compiled
 * after checkPrelude and det_of_minor.c: recursions whose loops keep iteration records, the
 * record buffer allocated once at its exact size where the loop's trip
 * count is known on entry, grown as the loop runs where it is not.
 *   det: the determinant by minors, its loop's count the argument n (sizes
 *     1 to 5: each call's loop runs a different number of times).
 *   tri: a loop of n - 1 iterations around a recursion on n - 2 - k, so
 *     that non-leaf calls with n = 0 or 1 run it zero times.
 *   shrink: the loop's bound lim is lowered inside the loop where x[k] is
 *     positive: the count on entry is not the count (no exact size).
 *   early: the loop leaves early once its sum passes a threshold (no
 *     exact count: the growth check stays).
 * (The recursive calls of shrink and early depend on k: LLVM would hoist
 * a loop-invariant call out of the loop, which would then record nothing.)
 *   tri and det again in split mode (__enzyme_augmentfwd, another gradient
 *     in between, then __enzyme_reverse with the tape).
 * Each gradient against central differences. */
extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

enum { maxN = 5, len = maxN * maxN };

static long size; /* a variable: the loops stay loops */

double det(const double *a) {
	long r[maxN + 1], c[maxN + 1];
	for (long i = 0; i < size; i++) r[i] = c[i] = i + 1;
	r[size] = c[size] = 0;
	return det_of_minor(a, size, size, r, c);
}

__attribute__((noinline)) static double tri_of(const double *x, long n) {
	if (n < 0) return 1.0;
	double s = x[n];
	for (long k = 0; k < n - 1; k++) s += sin(x[k] * s) * tri_of(x, n - 2 - k);
	return s;
}

double tri(const double *x) { return tri_of(x, size); }

__attribute__((noinline)) static double shrink_of(const double *x, long n) {
	if (n <= 0) return x[0];
	double s = 0;
	long lim = n + 1;
	for (long k = 0; k < lim; k++) {
		s += sin(x[k]) * shrink_of(x, n - 1 - (k & 1));
		if (x[k] > 0.0) lim--;
	}
	return s;
}

double shrink(const double *x) { return shrink_of(x, size); }

__attribute__((noinline)) static double early_of(const double *x, long n) {
	if (n == 0) return x[0];
	double s = 0;
	for (long k = 0; k < n; k++) {
		s += x[k] * x[n] * early_of(x, n - 1 - (k & 1));
		if (s > 0.4) break;
	}
	return s;
}

double early(const double *x) { return early_of(x, size); }

typedef double (*fn)(const double *);

static void against_differences(const char *name, fn f, const double *g, double *x, int n) {
	char what[64];
	for (int i = 0; i < n; i++) {
		double save = x[i], h = 1e-6;
		x[i] = save + h;
		double fp = f(x);
		x[i] = save - h;
		double fm = f(x);
		x[i] = save;
		snprintf(what, sizeof what, "%s size %ld, entry %d", name, size, i);
		check(what, g[i], (fp - fm) / (2 * h), 1e-6);
	}
}

int main(void) {
	double a[len], da[len], x[len], dx[len];
	for (int i = 0; i < len; i++) {
		a[i] = 0.3 + 0.7 * sin(1.7 * i + 0.2);
		x[i] = 0.6 * sin(2.3 * i + 0.4);
	}
	for (size = 1; size <= maxN; size++) {
#define GRADIENT(f, at, d, n)                                           \
	do {                                                            \
		for (int i = 0; i < len; i++) d[i] = 0;                 \
		__enzyme_autodiff((void *)f, enzyme_dup, at, d);        \
		against_differences(#f, f, d, at, n);                   \
	} while (0)
		GRADIENT(det, a, da, (int)(size * size));
		GRADIENT(tri, x, dx, (int)size + 1);
		GRADIENT(shrink, x, dx, (int)size + 1);
		GRADIENT(early, x, dx, (int)size + 1);
		/* Split: the tapes stay between the halves, another gradient runs
		 * in between. */
		double ddet[len] = {0}, dtri[len] = {0}, dmid[len] = {0};
		void *tdet = __enzyme_augmentfwd((void *)det, enzyme_dup, a, ddet);
		void *ttri = __enzyme_augmentfwd((void *)tri, enzyme_dup, x, dtri);
		__enzyme_autodiff((void *)shrink, enzyme_dup, x, dmid);
		__enzyme_reverse((void *)tri, enzyme_dup, x, dtri, 1.0, ttri);
		__enzyme_reverse((void *)det, enzyme_dup, a, ddet, 1.0, tdet);
		against_differences("split det", det, ddet, a, (int)(size * size));
		against_differences("split tri", tri, dtri, x, (int)size + 1);
		against_differences("shrink between", shrink, dmid, x, (int)size + 1);
	}
	return failures != 0;
}
