package ad

import (
	"strings"
	"testing"
)

// nullFieldIR walks a list carrying the address of the previous node's
// v[4] in a phi that starts as that field of a null node: `inttoptr (i64
// 32 ...)`, as the optimizer folds `&prev->v[4]` of a prev that is null on
// entry. It is only read from the second node on:
// s = Σ v2_i · (i > 0 ? v4_{i-1} : 1).
const nullFieldIR = `
%struct.node = type { [5 x double], %struct.node* }

define double @walk(%struct.node* %head) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %skip ]
  %c = phi %struct.node* [ %head, %entry ], [ %next, %skip ]
  %pv = phi double* [ inttoptr (i64 32 to double*), %entry ], [ %cv4, %skip ]
  %s = phi double [ 0.0, %entry ], [ %s2, %skip ]
  %done = icmp eq %struct.node* %c, null
  br i1 %done, label %exit, label %body
body:
  %first = icmp eq i64 %i, 0
  br i1 %first, label %skip, label %back
back:
  %w = load double, double* %pv
  br label %skip
skip:
  %wp = phi double [ 1.0, %body ], [ %w, %back ]
  %vp = getelementptr %struct.node, %struct.node* %c, i64 0, i32 0, i64 2
  %v = load double, double* %vp
  %t = fmul double %v, %wp
  %s2 = fadd double %s, %t
  %cv4 = getelementptr %struct.node, %struct.node* %c, i64 0, i32 0, i64 4
  %nextp = getelementptr %struct.node, %struct.node* %c, i64 0, i32 1
  %next = load %struct.node*, %struct.node** %nextp
  %i1 = add i64 %i, 1
  br label %loop
exit:
  ret double %s
}
`

// TestNullPageShadow: a pointer constant in the null page (a field of a
// null node, folded to inttoptr) meeting shadowed pointers in a phi is its
// own shadow; the gradient and the tangents of walk over a list against
// the analytic ones, at every level.
func TestNullPageShadow(t *testing.T) {
	src := checkPrelude + `
#include <string.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
struct node { double v[5]; struct node *next; };
double walk(struct node *head);
enum { N = 4 };
static void link(struct node *ns) {
	for (int i = 0; i < N; i++) ns[i].next = i + 1 < N ? &ns[i + 1] : NULL;
}
int main(void) {
	struct node ns[N], ds[N];
	memset(ds, 0, sizeof ds);
	for (int i = 0; i < N; i++)
		for (int k = 0; k < 5; k++) ns[i].v[k] = 0.3 + 0.1 * i - 0.07 * k;
	link(ns), link(ds);
	__enzyme_autodiff((void *)walk, enzyme_dup, ns, ds);
	for (int i = 0; i < N; i++) {
		char what[32];
		snprintf(what, sizeof what, "d v2[%d]", i);
		CHECK(what, ds[i].v[2], i > 0 ? ns[i - 1].v[4] : 1);
		snprintf(what, sizeof what, "d v4[%d]", i);
		CHECK(what, ds[i].v[4], i + 1 < N ? ns[i + 1].v[2] : 0);
	}
	struct node ts[N];
	memset(ts, 0, sizeof ts);
	link(ts);
	ts[1].v[2] = 1, ts[1].v[4] = 2; /* tangent: d/dv2[1] + 2 d/dv4[1] */
	CHECK("tangent", __enzyme_fwddiff((void *)walk, enzyme_dup, ns, ts), ns[0].v[4] + 2 * ns[2].v[2]);
	return failures != 0;
}
`
	runIRWants(t, src, nullFieldIR, optLevels, true, "ok d v4[3]", "ok tangent")
}

// TestConstGlobalShadow: a pointer chosen between a constant global (a
// static const array; a const table of pointers to such arrays) and an
// active one gets the global's zero shadow: reverse mode accumulates into a
// writable copy nobody reads, forward mode reads zeros from a constant one.
// The gradient twice in a row (what the first left in the reverse shadow
// must not show in the second, nor in forward mode), split mode and
// forward mode against the analytic values, at every level.
func TestConstGlobalShadow(t *testing.T) {
	src := checkPrelude + `
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
static const double c[4] = {1.5, 2.5, -0.5, 3.0};
static const double e[4] = {0.25, -1.0, 2.0, 0.5};
static const double *const tables[2] = {c, e};
/* s = Σ p[i]·x[i]·x[i] with p = x or c. */
__attribute__((noinline)) double pick(const double *x, int n, int which) {
	const double *p = which ? x : c;
	double s = 0;
	for (int i = 0; i < n; i++) s += p[i] * x[i] * x[i];
	return s;
}
/* s = Σ pp[0][i]·pp[1][i]·x[i] with pp = rows or tables. */
__attribute__((noinline)) double pick2(const double *x, const double *const *rows, int n, int which) {
	const double *const *pp = which ? rows : tables;
	double s = 0;
	for (int i = 0; i < n; i++) s += pp[0][i] * pp[1][i] * x[i];
	return s;
}
double f(double *x, int n) {
	const double *rows[2] = {x, x};
	return pick(x, n, 1) + pick(x, n, 0) + 2 * pick2(x, rows, n, n < 3) + pick2(x, rows, n, 1);
}
static double want(const double *x, int i) { return 3 * x[i] * x[i] + 2 * x[i] * c[i] + 2 * c[i] * e[i] + 3 * x[i] * x[i]; }
int main(void) {
	double x[4] = {0.3, -0.7, 1.1, 0.5};
	for (int round = 0; round < 2; round++) {
		double dx[4] = {0};
		__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 4);
		for (int i = 0; i < 4; i++) {
			char what[32];
			snprintf(what, sizeof what, "dx[%d]", i);
			CHECK(what, dx[i], want(x, i));
		}
	}
	double ds[4] = {0};
	void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, x, ds, enzyme_const, 4);
	__enzyme_reverse((void *)f, enzyme_dup, x, ds, enzyme_const, 4, 1.0, tape);
	for (int i = 0; i < 4; i++) {
		char what[32];
		snprintf(what, sizeof what, "split dx[%d]", i);
		CHECK(what, ds[i], want(x, i));
		double t[4] = {0};
		t[i] = 1;
		snprintf(what, sizeof what, "tangent[%d]", i);
		CHECK(what, __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, 4), want(x, i));
	}
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			checkWants(t, run(t, buildC(t, src, o)), "-O"+o, []string{"ok tangent[3]"})
		})
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestConstGlobalShadowUnknown: a constant table of pointers to a writable
// global holding floats has no shadow to give those pointers (writable
// globals get none): the link stops naming it rather than reading null.
func TestConstGlobalShadowUnknown(t *testing.T) {
	src := `
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double w[4] = {1, 2, 3, 4};
static double *const tables[1] = {w};
__attribute__((noinline)) double pick(double *const *rows, int n, int which) {
	double *const *pp = which ? rows : tables;
	double s = 0;
	for (int i = 0; i < n; i++) s += pp[0][i] * pp[0][i];
	return s;
}
double f(double *x, int n) {
	double *rows[1] = {x};
	return pick(rows, n, n > 5);
}
int main(void) {
	double x[4] = {1, 2, 3, 4}, dx[4] = {0};
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 4);
	return 0;
}
`
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) {
			_, err := tryBuildC(t, src, o)
			if err == nil || !strings.Contains(err.Error(), "writable global") {
				t.Fatalf("-O%s: want an error naming the writable global, got %v", o, err)
			}
		})
	}
}
