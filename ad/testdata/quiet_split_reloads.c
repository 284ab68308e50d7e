/* Called functions whose reverse loads primal memory again instead of
   taping it (quiet.go), and the cases where that would be wrong: the
   caller (or its caller) writes the memory after the call, on a later trip
   of a loop, after a free; the memory is a local of a split caller whose
   frame is gone, or of the callee itself. Each root's gradient against
   central differences. (checkPrelude is prepended.) */
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

#define N 6

/* Reads only: its reverse may reload w and x where its caller is quiet. */
__attribute__((noinline)) double wsum(const double *w, const double *x, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += w[i] * x[i] * x[i];
	return s;
}
__attribute__((noinline)) double cubes(const double *t, int n) {
	double s = 0;
	for (int i = 0; i < n; i++) s += t[i] * t[i] * t[i];
	return s;
}

/* Quiet: nothing after the call. */
double quiet_last(double *x, int n) {
	double w[N] = {1, -2, 3, 0.5, 2, -1};
	return 2 * wsum(w, x, n);
}

/* The caller writes x after the call: the callee's x must be taped. */
double write_after(double *x, int n) {
	double s = wsum(x, x, n);
	x[0] = 3.0;
	x[2] = x[1] * x[3];
	return s + x[0] * x[1] + x[2];
}

/* A write before the call in a loop runs after the previous trip's call. */
double loop_write_before(double *x, int n) {
	double s = 0;
	for (int k = 0; k < 3; k++) {
		x[k] = x[k] * x[(k + 1) % n];
		s += cubes(x, n);
	}
	return s;
}

/* A quiet root over a split caller that writes after its own call. */
__attribute__((noinline)) double writes_after_inner(double *x, int n) {
	double s = cubes(x, n);
	x[1] = x[0] * 5;
	return s * x[1];
}
double chain(double *x, int n) { return writes_after_inner(x, n) + 1.0; }

/* A split caller's local array, read by its callee: gone by the reverse. */
__attribute__((noinline)) double local_of_split(const double *x, int n) {
	double t[8];
	for (int i = 0; i < 8; i++) t[i] = sin(x[i % n]) + i;
	return cubes(t, 8);
}
__attribute__((noinline)) double clobber(int k) {
	volatile double big[64];
	for (int i = 0; i < 64; i++) big[i] = k * i + 0.25;
	return big[k];
}
double dead_frame(double *x, int n) {
	double r = local_of_split(x, n);
	return 3 * r;
}

/* The root's own local, its lifetime ended after the call. */
double root_local(double *x, int n) {
	double r = 0;
	{
		double t[8];
		for (int i = 0; i < 8; i++) t[i] = x[i % n] * (i + 1);
		r += cubes(t, 8);
	}
	return r;
}

/* Recursion with nothing after each call. */
__attribute__((noinline)) double rec(const double *x, int n) {
	if (n == 0) return 0.5;
	return x[n - 1] * x[n - 1] + sin(rec(x, n - 1));
}
double recursion(double *x, int n) { return rec(x, n); }

/* The callee overwrites what it read, and frees a buffer it read. */
__attribute__((noinline)) double in_place(double *x, int n) {
	double *c = malloc(n * sizeof *c);
	double s = 0;
	for (int i = 0; i < n; i++) c[i] = x[i] * x[i];
	for (int i = 0; i < n; i++) {
		s += c[i] * x[i];
		x[i] = sin(x[i]);
	}
	free(c);
	for (int i = 0; i < n; i++) s += x[i] * x[(i + 1) % n];
	return s;
}
double callee_writes(double *x, int n) { return in_place(x, n); }

/* Through a pointer read from memory. */
typedef struct { const double *data; int n; } View;
__attribute__((noinline)) double view_sum(const View *v) {
	double s = 0;
	for (int i = 0; i < v->n; i++) s += v->data[i] * v->data[(i + 1) % v->n];
	return s;
}
double through_view(double *x, int n) {
	View v = {x, n};
	return view_sum(&v);
}

typedef double (*fn)(double *, int);

static void grad_check(const char *name, fn f, double *dx, int n) {
	double x0[N], xp[N], xm[N];
	for (int i = 0; i < n; i++) x0[i] = 0.3 + 0.17 * i;
	const double h = 1e-6;
	for (int i = 0; i < n; i++) {
		memcpy(xp, x0, sizeof xp);
		memcpy(xm, x0, sizeof xm);
		xp[i] += h;
		xm[i] -= h;
		double fd = (f(xp, n) - f(xm, n)) / (2 * h);
		char what[64];
		snprintf(what, sizeof what, "%s d/dx%d", name, i);
		check(what, dx[i], fd, 1e-6);
	}
}

#define GRAD(f)                                                                                                        \
	do {                                                                                                               \
		double x[N], dx[N] = {0};                                                                                     \
		for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i;                                                           \
		__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);                                            \
		clobber(3);                                                                                                    \
		grad_check(#f, f, dx, N);                                                                                      \
	} while (0)

int main(void) {
	GRAD(quiet_last);
	GRAD(write_after);
	GRAD(loop_write_before);
	GRAD(chain);
	GRAD(dead_frame);
	GRAD(root_local);
	GRAD(recursion);
	GRAD(callee_writes);
	GRAD(through_view);
	printf("%d failures\n", failures);
	return failures != 0;
}
