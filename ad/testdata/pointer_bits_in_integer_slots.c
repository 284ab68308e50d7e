/* A pointer into x passed as an integer to a setter that stores it into
 * the caller's integer slot, read back and made a pointer again. CASE
 * picks the function (checked against central differences):
 *   via_puti: the setter's parameter holds only pointers (the retype
 *     makes it, and its store, a pointer): exact;
 *   via_putp: the same through double ** (always exact);
 *   mixed: the setter also stores a plain integer, so its store stays an
 *     integer store and the pointer read back has no shadow: the link
 *     stops;
 *   getter: the same, read back by a getter returning the pointer: the
 *     link stops;
 *   checked: the pointer's bits only go to an alignment check (whose
 *     parameter also takes a plain integer, so it stays one), and a
 *     pointer to constant weights read from a local struct carries no
 *     derivative: exact, no stop. */
#include <stdio.h>
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
enum { N = 6 };
__attribute__((noinline)) void putp(double **s, double *v) { *s = v; }
__attribute__((noinline)) void puti(long *s, long v) { *s = v; }
double via_putp(double *x) {
	double *slot[1];
	putp(slot, x + 2);
	double *a = slot[0];
	double s = 0;
	for (int i = 0; i < 2; i++) s += a[i] * a[i] * x[i];
	return s;
}
double via_puti(double *x) {
	long slot[1];
	puti(slot, (long)(x + 2));
	double *a = (double *)slot[0];
	double s = 0;
	for (int i = 0; i < 2; i++) s += a[i] * a[i] * x[i];
	return s;
}
double mixed(double *x) {
	long slot[2];
	puti(slot, (long)(x + 2));
	puti(slot + 1, 3);
	double *a = (double *)slot[0];
	double s = 0;
	for (int i = 0; i < slot[1] - 1; i++) s += a[i] * a[i] * x[i];
	return s;
}
__attribute__((noinline)) double *getp(long *s) { return (double *)s[0]; }
double getter(double *x) {
	long slot[2];
	puti(slot, (long)(x + 2));
	puti(slot + 1, 3);
	double *a = getp(slot);
	double s = 0;
	for (int i = 0; i < slot[1] - 1; i++) s += a[i] * a[i] * x[i];
	return s;
}
static const double weights[2] = {0.5, 2};
struct table { const double *w; int n; };
__attribute__((noinline)) int aligned(long p) { return (p & 7) == 0; }
__attribute__((noinline)) void settable(struct table *t) { t->w = weights, t->n = 2; }
double checked(double *x) {
	struct table t;
	settable(&t);
	double s = aligned((long)(x + 1)) ? 0 : 100;
	s += aligned(3); /* also an integer: the parameter stays one */
	for (int i = 0; i < t.n; i++) s += t.w[i] * x[i + 1] * x[i + 1];
	return s;
}
int main(void) {
	double x[N], dx[N] = {0};
	for (int i = 0; i < N; i++) x[i] = 0.2 + 0.15 * i;
	__enzyme_autodiff((void *)CASE, enzyme_dup, x, dx);
	for (int i = 0; i < N; i++) {
		double s = x[i], h = 1e-6;
		x[i] = s + h; double fp = CASE(x);
		x[i] = s - h; double fm = CASE(x);
		x[i] = s;
		char w[32]; snprintf(w, sizeof w, "dx[%d]", i);
		check(w, dx[i], (fp - fm) / (2 * h), 1e-6);
	}
	return failures != 0;
}
