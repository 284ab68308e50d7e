/* The program of TestOwnShadowScope (ownscope_test.go), compiled after
 * checkPrelude: gradients whose shadows of the primal's own allocations
 * get an alias scope apart from the primal's loads (ownscope.go). local
 * is a triangular product into a malloc'd buffer (out[j] += a[li] * x[i],
 * a read through a pointer loaded from the caller's struct between the
 * reverse's clear of out's shadow and its add), stacked the same into a
 * local array; escaped lets the buffer's address out into a struct a callee
 * reads it from (no scope: the primal reads it back from memory); inplace is local called with the
 * shadow of x being x itself (the caller's shadows get no claim: the
 * result is what the same gradient computes without the scope, checked
 * against the value derived by hand for this aliasing). Each gradient
 * against central differences. */
#include <stdlib.h>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_dupnoneed;
void __enzyme_autodiff(void *, ...);

enum { D = 7, A = D + D * (D - 1) / 2 };

struct vec {
	double *data;
	int n;
};

__attribute__((noinline)) double local(const struct vec *av, const double *x) {
	int d = av->n;
	const double *a = av->data;
	double *out = malloc(d * sizeof(double));
	for (int i = 0; i < d; i++) out[i] = a[i] * x[i];
	int li = d;
	for (int i = 0; i < d; i++)
		for (int j = i + 1; j < d; j++) out[j] += a[li++] * x[i];
	double s = 0;
	for (int i = 0; i < d; i++) s += out[i] * out[i];
	free(out);
	return s;
}

__attribute__((noinline)) double stacked(const struct vec *av, const double *x) {
	int d = av->n;
	const double *a = av->data;
	double out[D];
	for (int i = 0; i < d; i++) out[i] = a[i] * x[i];
	int li = d;
	for (int i = 0; i < d; i++)
		for (int j = i + 1; j < d; j++) out[j] += a[li++] * x[i];
	double s = 0;
	for (int i = 0; i < d; i++) s += out[i] * out[i] * x[i];
	return s;
}

struct box {
	double *p;
};

/* tri_into adds the triangle into the buffer box b holds. */
__attribute__((noinline)) static void tri_into(struct box *b, const double *a, const double *x, int d) {
	int li = d;
	for (int i = 0; i < d; i++)
		for (int j = i + 1; j < d; j++) b->p[j] += a[li++] * x[i];
}

__attribute__((noinline)) double escaped(const struct vec *av, const double *x) {
	int d = av->n;
	const double *a = av->data;
	double *out = malloc(d * sizeof(double));
	struct box b = {out};
	for (int i = 0; i < d; i++) out[i] = a[i] * x[i];
	tri_into(&b, a, x, d);
	double s = 0;
	for (int i = 0; i < d; i++) s += out[i] * out[i];
	free(out);
	return s;
}

/* CHECK checks f's gradient in a's data and in x against central
 * differences. */
#define CHECK(what, f)                                                     \
	do {                                                                 \
		double p[A], dp[A], x[D], dx[D];                                 \
		for (int i = 0; i < A; i++) p[i] = 0.2 + 0.05 * i, dp[i] = 0;    \
		for (int i = 0; i < D; i++) x[i] = 1.0 - 0.1 * i, dx[i] = 0;     \
		struct vec a = {p, D}, da = {dp, D};                             \
		__enzyme_autodiff((void *)f, enzyme_dup, &a, &da, enzyme_dup, x, dx); \
		for (int i = 0; i < A; i++) {                                    \
			double h = 1e-6, save = p[i];                                \
			p[i] = save + h;                                             \
			double fp = f(&a, x);                                        \
			p[i] = save - h;                                             \
			double fm = f(&a, x);                                        \
			p[i] = save;                                                 \
			check(what " data", dp[i], (fp - fm) / (2 * h), 1e-6);       \
		}                                                                \
		for (int i = 0; i < D; i++) {                                    \
			double h = 1e-6, save = x[i];                                \
			x[i] = save + h;                                             \
			double fp = f(&a, x);                                        \
			x[i] = save - h;                                             \
			double fm = f(&a, x);                                        \
			x[i] = save;                                                 \
			check(what " x", dx[i], (fp - fm) / (2 * h), 1e-6);          \
		}                                                                \
	} while (0)

int main(void) {
	CHECK("local", local);
	CHECK("stacked", stacked);
	CHECK("escaped", escaped);
	/* local with x's shadow x itself: the reverse adds the gradient into
	 * x while it still reads x. The caller's shadow gets no claim of the
	 * scope, so the result is the one of the separate-buffer gradient
	 * wherever x is read before it is added into: compare with local's
	 * gradient taken into a separate buffer, added to x. */
	double p[A], dp[A], x[D], y[D], dy[D];
	for (int i = 0; i < A; i++) p[i] = 0.2 + 0.05 * i, dp[i] = 0;
	for (int i = 0; i < D; i++) x[i] = y[i] = 1.0 - 0.1 * i, dy[i] = 0;
	struct vec a = {p, D}, da = {dp, D};
	__enzyme_autodiff((void *)local, enzyme_dup, &a, &da, enzyme_dup, y, dy);
	for (int i = 0; i < A; i++) dp[i] = 0;
	__enzyme_autodiff((void *)local, enzyme_dup, &a, &da, enzyme_dup, x, x);
	for (int i = 0; i < D; i++) check("inplace x", x[i], y[i] + dy[i], 1e-9);
	return failures != 0;
}
