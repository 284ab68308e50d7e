package typeanalysis

import (
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
)

// flowsSrc has the rules whose flows the analysis skips when their source
// tree is unchanged: casts, phis through a loop, loads and stores
// (one storing a pointer through itself), constant and variable
// getelementptrs, and calls with one and with two contexts.
const flowsSrc = `
%pair = type { double, double* }
define double @f(%pair* %p, double* %x, i64 %n, i8** %self) {
entry:
  %vp = getelementptr %pair, %pair* %p, i64 0, i32 1
  %v = load double*, double** %vp
  %sp = bitcast i8** %self to i8*
  store i8* %sp, i8** %self
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc1, %loop ]
  %q = phi double* [ %v, %entry ], [ %q1, %loop ]
  %e = getelementptr double, double* %x, i64 %i
  %xi = bitcast double* %e to i64*
  %bits = load i64, i64* %xi
  %d = bitcast i64 %bits to double
  %w = load double, double* %q
  %prod = call double @mul(double %d, double %w)
  %acc1 = fadd double %acc, %prod
  %q1 = getelementptr double, double* %q, i64 1
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %loop, label %done
done:
  %first = getelementptr %pair, %pair* %p, i64 0, i32 0
  %f0 = load double, double* %first
  %one = call double @mul(double %acc1, double %f0)
  %two = call double @once(%pair* %p)
  %r = fadd double %one, %two
  ret double %r
}
define double @mul(double %a, double %b) {
  %m = fmul double %a, %b
  ret double %m
}
define double @once(%pair* %p) {
  %vp = getelementptr %pair, %pair* %p, i64 0, i32 1
  %v = load double*, double** %vp
  %e = getelementptr double, double* %v, i64 3
  %d = load double, double* %e
  ret double %d
}
`

// TestAnalysisSkippedFlowsChangeNothing checks that skipping the flows
// whose source tree is unchanged since they last ran gives the analysis
// that runs every flow: the same trees, return trees and visits.
func TestAnalysisSkippedFlowsChangeNothing(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{"flows": flowsSrc, "subDoubleStore": subDoubleStore} {
		m, err := irutil.ParseText("test.ll", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		roots := []*ir.Func{m.Funcs[0]}
		for _, f := range m.Funcs {
			if f.Name() == "f" || f.Name() == "foo" {
				roots = []*ir.Func{f}
			}
		}
		skip, all := analyzeFlows(roots, nil, true), analyzeFlows(roots, nil, false)
		if skip.visits != all.visits || skip.exhausted != all.exhausted {
			t.Errorf("%s: %d visits (exhausted %v) skipping flows, %d (%v) running all", name, skip.visits, skip.exhausted, all.visits, all.exhausted)
		}
		if len(skip.trees) != len(all.trees) {
			t.Fatalf("%s: %d trees skipping flows, %d running all", name, len(skip.trees), len(all.trees))
		}
		for v, tr := range all.trees {
			if !skip.trees[v].Equal(tr) {
				t.Errorf("%s: %s: %s skipping flows, %s running all", name, v.Ident(), skip.trees[v], tr)
			}
		}
		for f, tr := range all.rets {
			if !skip.rets[f].Equal(tr) {
				t.Errorf("%s: return of %s: %s skipping flows, %s running all", name, f.Name(), skip.rets[f], tr)
			}
		}
		if skip.Tree(named(t, m, roots[0].Name(), roots[0].Params[0].Name())).Len() == 0 {
			t.Errorf("%s: nothing known of %s's first parameter", name, roots[0].Name())
		}
	}
}
