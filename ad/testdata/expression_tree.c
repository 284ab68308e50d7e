/* The program of TestExpressionTreeRun (dispatch_test.go): an expression
   interpreter in the style of tinyexpr. Nodes hold a constant, the address
   of a variable, or a function pointer and its arguments; the evaluator
   casts the pointer to the node's arity, 0 to 4, though no function of the
   program takes three or four doubles (those calls never run here). The
   variables' gradient, reverse and forward mode, against central
   differences. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { CONST, VAR, FN };
typedef struct node {
	int kind, arity;
	union {
		double value;
		const double *bound;
		const void *fn;
	};
	struct node *args[4];
} node;

__attribute__((noinline)) double eval(const node *n) {
	switch (n->kind) {
	case CONST:
		return n->value;
	case VAR:
		return *n->bound;
	}
#define A(i) eval(n->args[i])
	switch (n->arity) {
	case 0:
		return ((double (*)(void))n->fn)();
	case 1:
		return ((double (*)(double))n->fn)(A(0));
	case 2:
		return ((double (*)(double, double))n->fn)(A(0), A(1));
	case 3:
		return ((double (*)(double, double, double))n->fn)(A(0), A(1), A(2));
	case 4:
		return ((double (*)(double, double, double, double))n->fn)(A(0), A(1), A(2), A(3));
	}
	return NAN;
}

static double add(double a, double b) { return a + b; }
static double mul(double a, double b) { return a * b; }
static double neg(double a) { return -a; }
static double half(void) { return 0.5; }
static double bump(double a, double b) { return a * exp(-b * b); }

static node pool[64];
static int used;
static node *mk(int kind, int arity, const void *p, double v, node *a, node *b) {
	node *n = &pool[used++];
	n->kind = kind, n->arity = arity, n->args[0] = a, n->args[1] = b;
	if (kind == CONST) n->value = v;
	else if (kind == VAR) n->bound = p;
	else n->fn = p;
	return n;
}
#define F1(f, a) mk(FN, 1, (const void *)(f), 0, a, 0)
#define F2(f, a, b) mk(FN, 2, (const void *)(f), 0, a, b)

/* sin(x)*y + bump(x, y) + half()*pow(y, x) - atan2(x, sqrt(y)) + exp(neg(x*y)) */
static node *build(const double *x, const double *y) {
	node *X = mk(VAR, 0, x, 0, 0, 0), *Y = mk(VAR, 0, y, 0, 0, 0);
	node *t1 = F2(mul, F1(sin, X), Y);
	node *t2 = F2(bump, X, Y);
	node *t3 = F2(mul, mk(FN, 0, (const void *)half, 0, 0, 0), F2(pow, Y, X));
	node *t4 = F1(neg, F2(atan2, X, F1(sqrt, Y)));
	node *t5 = F1(exp, F1(neg, F2(mul, X, Y)));
	return F2(add, F2(add, F2(add, t1, t2), F2(add, t3, t4)), t5);
}

typedef struct { double x, y; } vars;
static double f(const node *e, vars *v) { (void)v; return eval(e); }

int main(void) {
	vars v = {0.7, 1.3}, dv = {0, 0}, tv = {1, 0};
	node *e = build(&v.x, &v.y), *de = build(&dv.x, &dv.y), *te = build(&tv.x, &tv.y);
	__enzyme_autodiff((void *)f, enzyme_dup, e, de, enzyme_dup, &v, &dv);
	double fx = __enzyme_fwddiff((void *)f, enzyme_dup, e, te, enzyme_dup, &v, &tv);
	double h = 1e-6, s = v.x, fd[2];
	v.x = s + h; double a = eval(e);
	v.x = s - h; double b = eval(e);
	v.x = s, s = v.y;
	fd[0] = (a - b) / (2 * h);
	v.y = s + h; a = eval(e);
	v.y = s - h; b = eval(e);
	v.y = s;
	fd[1] = (a - b) / (2 * h);
	printf("reverse %.9g %.9g forward %.9g fd %.9g %.9g\n", dv.x, dv.y, fx, fd[0], fd[1]);
	return !(fabs(dv.x - fd[0]) < 1e-6 && fabs(dv.y - fd[1]) < 1e-6 && fabs(fx - fd[0]) < 1e-6);
}
