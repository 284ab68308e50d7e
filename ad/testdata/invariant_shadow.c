/* The program of TestInvariantShadowLoads (invariantshadow_test.go),
 * compiled after checkPrelude: shadows of pointer loads in loops, cached
 * once per call where the loop's forward writes no shadow memory, per
 * iteration where it does.
 *   vdet: the determinant by minors reading the matrix through a struct's
 *     data pointer (a std::vector's): its load stays in the loop, after the
 *     recursive call; nothing the loop runs writes shadow memory, so the
 *     shadow data pointer is kept once per call (sizes 1 to 4).
 *   advanced: a loop reading p->data[0], then moving p->data on (a store
 *     into memory with a shadow): each iteration reads its own entry.
 *   aliased: x's and y's shadows are one struct; the loop reads x->data[k]
 *     and calls point(y, buf), whose primal never writes x but whose
 *     forward writes the shared shadow: the derivative of x->data[0] goes
 *     where the shadow pointed before the first call (dx), those of later
 *     iterations into buf's shadow, as each iteration's shadow load reads.
 * Each gradient against central differences or its analytic value. */
extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);

enum { maxN = 4 };

struct vec {
	double *data;
	long n;
};

__attribute__((noinline)) static double vdet_of_minor(const struct vec *a, long m, long n, long *r, long *c) {
	long row = r[m];
	if (n == 1) return a->data[row * m + c[m]];
	r[m] = r[row];
	double det = 0;
	int plus = 1;
	long prev = m;
	for (long k = 0, j = c[m]; k < n; k++, prev = j, j = c[j]) {
		c[prev] = c[j];
		double minor = vdet_of_minor(a, m, n - 1, r, c);
		c[prev] = j;
		double term = a->data[row * m + j] * minor;
		det = plus ? det + term : det - term;
		plus = !plus;
	}
	r[m] = row;
	return det;
}

static long detN; /* the matrix size (a variable: the loops stay loops) */

double vdet(const struct vec *a) {
	long r[maxN + 1], c[maxN + 1];
	for (long i = 0; i < detN; i++) r[i] = c[i] = i + 1;
	r[detN] = c[detN] = 0;
	return vdet_of_minor(a, detN, detN, r, c);
}

int loopN = 4; /* not a constant: the loops stay loops */

double advanced(struct vec *p) {
	double s = 0;
	for (int k = 0; k < loopN; k++) {
		s += sin(p->data[0]) * (k + 1);
		p->data = p->data + 1;
	}
	return s;
}

__attribute__((noinline)) static void point(struct vec *y, double *buf) { y->data = buf; }

double aliased(struct vec *x, struct vec *y, double *buf) {
	double s = 0;
	for (int k = 0; k < loopN; k++) {
		s += x->data[k] * x->data[k];
		point(y, buf);
	}
	return s;
}

int main(void) {
	double a[maxN * maxN], da[maxN * maxN];
	for (int i = 0; i < maxN * maxN; i++) a[i] = 0.3 + 0.7 * sin(1.7 * i + 0.2);
	char what[64];
	for (detN = 1; detN <= maxN; detN++) {
		struct vec v = {a, detN * detN}, dv = {da, detN * detN};
		for (int i = 0; i < maxN * maxN; i++) da[i] = 0;
		__enzyme_autodiff((void *)vdet, enzyme_dup, &v, &dv);
		for (int i = 0; i < detN * detN; i++) {
			double save = a[i], h = 1e-6;
			a[i] = save + h;
			double fp = vdet(&v);
			a[i] = save - h;
			double fm = vdet(&v);
			a[i] = save;
			snprintf(what, sizeof what, "vdet n = %ld, entry %d", detN, i);
			check(what, da[i], (fp - fm) / (2 * h), 1e-6);
		}
	}
	{
		double u[maxN] = {0.1, 0.7, -0.4, 1.3}, du[maxN] = {0};
		struct vec p = {u, maxN}, dp = {du, maxN};
		__enzyme_autodiff((void *)advanced, enzyme_dup, &p, &dp);
		for (int k = 0; k < maxN; k++) {
			snprintf(what, sizeof what, "advanced, entry %d", k);
			check(what, du[k], cos(u[k]) * (k + 1), 1e-12);
		}
	}
	{
		double xs[maxN] = {0.5, -1.5, 2.0, 0.75}, ys[maxN] = {0}, buf[maxN] = {0};
		double dx[maxN] = {0}, dbuf[maxN] = {0};
		struct vec x = {xs, maxN}, y = {ys, maxN}, shared = {dx, maxN};
		__enzyme_autodiff((void *)aliased, enzyme_dup, &x, &shared, enzyme_dup, &y, &shared, enzyme_dup, buf, dbuf);
		for (int k = 0; k < maxN; k++) {
			snprintf(what, sizeof what, "aliased, entry %d", k);
			check(what, k == 0 ? dx[k] : dbuf[k], 2 * xs[k], 1e-12);
			check(what, k == 0 ? dbuf[k] : dx[k], 0, 1e-12);
		}
	}
	return failures != 0;
}
