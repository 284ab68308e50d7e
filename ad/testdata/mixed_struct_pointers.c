/* Structs built in the differentiated code that hold a pointer to constant
   weights next to a pointer to the active input: the weights' pointer has
   no shadow to store beside it, so the link differentiates with run-time
   activity checks, and the helpers reading through the struct add nothing
   into the weights. Reverse and forward mode against central differences;
   the weights must come out unchanged. */
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct { const double *w; int n; } Params;
typedef struct { const double *w; const double *a; int n; } Pair;
typedef struct { Pair p[2]; double scale; } Two;

__attribute__((noinline)) double pair_sum(const Pair *q) {
	double acc = 0;
	for (int i = 0; i < q->n; i++) acc += q->w[i] * cosh(tanh(q->a[i]));
	return acc;
}
__attribute__((noinline)) double two_sum(const Two *t) {
	return t->scale * (pair_sum(&t->p[0]) + pair_sum(&t->p[1]));
}

double f(double *x, const Params *cp) {
	Pair q;
	q.w = cp->w;
	q.a = x;
	q.n = cp->n;
	Two t;
	t.p[0] = q;
	t.p[1].w = x;      /* the active array read as weights too */
	t.p[1].a = cp->w;  /* and the constant one as data */
	t.p[1].n = cp->n;
	t.scale = x[0];
	return pair_sum(&q) * sin(x[1]) + two_sum(&t);
}

static int failures;
static void check(const char *what, double got, double want) {
	double err = fabs(got - want) / fmax(1.0, fabs(want));
	if (!(err <= 1e-6)) { printf("FAIL %s: got %.17g want %.17g\n", what, got, want); failures++; }
	else printf("ok %s: %.17g\n", what, got);
}

int main(void) {
	double w[3] = {0.5, -1.5, 2.0}, w0[3];
	memcpy(w0, w, sizeof w);
	Params cp = {w, 3};
	double x[3] = {0.3, -0.8, 1.1}, dx[3] = {0};
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, &cp);
	for (int i = 0; i < 3; i++) {
		double h = 1e-6, s = x[i];
		x[i] = s + h; double fp = f(x, &cp);
		x[i] = s - h; double fm = f(x, &cp);
		x[i] = s;
		char what[64];
		snprintf(what, sizeof what, "reverse d/dx[%d]", i);
		check(what, dx[i], (fp - fm) / (2 * h));
		double tx[3] = {0};
		tx[i] = 1;
		snprintf(what, sizeof what, "forward d/dx[%d]", i);
		check(what, __enzyme_fwddiff((void *)f, enzyme_dup, x, tx, enzyme_const, &cp), (fp - fm) / (2 * h));
		snprintf(what, sizeof what, "weights w[%d] unchanged", i);
		check(what, w[i], w0[i]);
	}
	return failures != 0;
}
