/* The program of TestCallSummariesIR (callactivity_test.go). */
#include <stdlib.h>
typedef struct { const double *w; int n; } P;
__attribute__((noinline)) void scale(double *a, const double *w, int n, double s) { for (int i = 0; i < n; i++) a[i] *= w[i] * s; }
__attribute__((noinline)) double *fresh(double x) { double *m = malloc(8); *m = x; return m; }
__attribute__((noinline)) double weights(const P *p, const double *x) { double s = 0; for (int i = 0; i < p->n; i++) s += p->w[i] * x[i]; return s; }
typedef struct Node { double v; struct Node *next; } Node;
__attribute__((noinline)) void fill(Node *l, double x) { for (; l; l = l->next) l->v = x; }
double use(double x, double *a, const double *w, P *p, Node *l) { scale(a, w, 3, x); fill(l, x); return *fresh(x) + weights(p, a); }
