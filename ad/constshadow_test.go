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
	t.Parallel()
	src := checkPrelude + testdataC(t, "null_page_shadow.c")
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
	t.Parallel()
	src := checkPrelude + testdataC(t, "const_global_shadow.c")
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
	t.Parallel()
	src := testdataC(t, "const_global_shadow_unknown.c")
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) {
			_, err := tryBuildC(t, src, o)
			if err == nil || !strings.Contains(err.Error(), "writable global") {
				t.Fatalf("-O%s: want an error naming the writable global, got %v", o, err)
			}
		})
	}
}
