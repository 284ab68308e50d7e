/* The program of TestSlotOverReload (slotreload_test.go), compiled after
 * checkPrelude: a pointer loaded outside every loop on one path only (the
 * early return before it), read by the reverse of a loop nest that adds
 * into a caller's shadow (reverse.go, slotOverReload: kept in a slot, not
 * reloaded per iteration). tri sums a triangle of products through the
 * loaded pointer, twice as a callee (its pair, split mode: reloaded), and
 * cleared a loop whose stores go to a local array between the load and
 * its reverse. Each gradient against central differences. */
extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);

enum { D = 6 };

struct vec {
	double *data;
	int n;
};

__attribute__((noinline)) double tri(const struct vec *a, const double *x) {
	int d = a->n;
	if (d <= 0) return 0;
	const double *p = a->data;
	double s = 0;
	for (int i = 0; i < d; i++)
		for (int j = i; j < d; j++) s += p[j] * x[i] * x[j] + p[i] * p[j];
	return s;
}

double twice(const struct vec *a, const double *x) { return tri(a, x) * x[0] + tri(a, x); }

double cleared(const struct vec *a, const double *x) {
	int d = a->n;
	if (d <= 1) return 0;
	const double *p = a->data;
	double t[D], s = 0;
	for (int i = 0; i < d; i++) t[i] = p[i] * x[i];
	for (int i = 0; i < d; i++)
		for (int j = 0; j < i; j++) s += t[j] * p[i] * x[j];
	return s;
}

/* CHECK checks f's gradient in a's data and in x against central
 * differences. */
#define CHECK(what, f)                                                     \
	do {                                                                 \
		double p[D], dp[D], x[D], dx[D];                                 \
		for (int i = 0; i < D; i++)                                      \
			p[i] = 0.3 + 0.1 * i, x[i] = 1.0 - 0.15 * i, dp[i] = dx[i] = 0; \
		struct vec a = {p, D}, da = {dp, D};                             \
		__enzyme_autodiff((void *)f, enzyme_dup, &a, &da, enzyme_dup, x, dx); \
		for (int i = 0; i < D; i++) {                                    \
			double h = 1e-6, save = p[i];                                \
			p[i] = save + h;                                             \
			double fp = f(&a, x);                                        \
			p[i] = save - h;                                             \
			double fm = f(&a, x);                                        \
			p[i] = save;                                                 \
			check(what " data", dp[i], (fp - fm) / (2 * h), 1e-6);       \
			save = x[i];                                                 \
			x[i] = save + h;                                             \
			fp = f(&a, x);                                               \
			x[i] = save - h;                                             \
			fm = f(&a, x);                                               \
			x[i] = save;                                                 \
			check(what " x", dx[i], (fp - fm) / (2 * h), 1e-6);          \
		}                                                                \
	} while (0)

int main(void) {
	CHECK("tri", tri);
	CHECK("twice", twice);
	CHECK("cleared", cleared);
	return failures != 0;
}
