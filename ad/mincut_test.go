package ad

import (
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
)

// A pairwise loop nest over memory the outer loop overwrites: the inner
// loop reads x[j] and x[i] (both overwritten later) and computes
// d/sqrt(d*d + 0.01). Planned caching keeps one double per inner iteration
// (the difference d, cheaper than the two loads), recomputes the sqrt chain
// from it, and caches the inner accumulator once per outer iteration (it is
// only read after the inner loop).
const pairwiseIR = `
define void @pairs(double* %x, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %xi.p = getelementptr inbounds double, double* %x, i64 %i
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %acc = phi double [ 0.0, %outer ], [ %acc.next, %inner ]
  %xj.p = getelementptr inbounds double, double* %x, i64 %j
  %xj = load double, double* %xj.p, align 8
  %xi = load double, double* %xi.p, align 8
  %d = fsub double %xj, %xi
  %d2 = fmul double %d, %d
  %r2 = fadd double %d2, 0.01
  %s = call double @llvm.sqrt.f64(double %r2)
  %f = fdiv double %d, %s
  %acc.next = fadd double %acc, %f
  %j.next = add nuw i64 %j, 1
  %cj = icmp ult i64 %j.next, %n
  br i1 %cj, label %inner, label %latch
latch:
  %old = load double, double* %xi.p, align 8
  %new = fmul double %old, %acc.next
  store double %new, double* %xi.p, align 8
  %i.next = add nuw i64 %i, 1
  %ci = icmp ult i64 %i.next, %n
  br i1 %ci, label %outer, label %exit
exit:
  ret void
}
declare double @llvm.sqrt.f64(double)
`

func TestPlannedCaches(t *testing.T) {
	t.Parallel()
	for _, split := range []bool{false, true} {
		testPlannedCaches(t, split)
	}
}

// testPlannedCaches checks the plan for the combined gradient, or for the
// augmented forward and reverse of split mode (where the caches are the tape).
func testPlannedCaches(t *testing.T, split bool) {
	m := parseIR(t, pairwiseIR)
	f := m.Funcs[0]
	d := newDiffer(m, Options{})
	r, err := d.generateReverse(func() (*reverseGen, error) {
		return newReverseGen(d, f, []activity.Activity{activity.Dup, activity.Const}, false, false, split, "grad_pairs")
	})
	if err != nil {
		t.Fatal(err)
	}
	bufs := func(header string) (elems []string) {
		for _, l := range r.cfg.Loops {
			if l.Header.Ident() == "%"+header {
				for _, b := range requestedFields(r.loops[l]) {
					elems = append(elems, b.elem.String())
				}
			}
		}
		return elems
	}
	if got := bufs("inner"); len(got) != 1 || got[0] != "double" {
		t.Errorf("split=%v: inner loop caches %v per iteration, want one double (%%d)", split, got)
	}
	doubles := 0
	for _, e := range bufs("outer") {
		if e == "double" {
			doubles++
		}
	}
	if doubles != 2 {
		t.Errorf("split=%v: outer loop caches %v per iteration, want two doubles (%%old and the accumulator)", split, bufs("outer"))
	}
	if !r.plan.cache[findValue(f, "d")] || !r.plan.recompute[findValue(f, "s")] {
		t.Errorf("split=%v: plan: cache %v, recompute %v", split, r.plan.cache, r.plan.recompute)
	}
	grads := 0
	for _, g := range m.Funcs {
		if g.Name() == "grad_pairs" {
			grads++
		}
	}
	if split {
		grads++ // split mode's gradient is cut into functions later
	}
	if grads != 1 {
		t.Errorf("%d functions grad_pairs: the dry run's must be dropped", grads)
	}
}

// A loop body with an if-then (a triangle): the reverse sweep tells which
// way the forward went from the branch condition (here recomputed from the
// induction variable) instead of caching the predecessor taken.
const triangleIR = `
define double @tri(double* %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %join ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %join ]
  %p = getelementptr inbounds double, double* %x, i64 %i
  %v = load double, double* %p, align 8
  %odd = and i64 %i, 1
  %c = icmp eq i64 %odd, 0
  br i1 %c, label %join, label %then
then:
  %w = fmul double %v, %v
  br label %join
join:
  %t = phi double [ %v, %loop ], [ %w, %then ]
  %sq = call double @sin(double %t)
  store double %sq, double* %p, align 8
  %s.next = fadd double %s, %sq
  %i.next = add nuw i64 %i, 1
  %cc = icmp ult i64 %i.next, %n
  br i1 %cc, label %loop, label %exit
exit:
  ret double %s.next
}
declare double @sin(double)
`

func TestTriangleBranchNotCached(t *testing.T) {
	t.Parallel()
	m := parseIR(t, triangleIR)
	d := newDiffer(m, Options{})
	r, err := d.generateReverse(func() (*reverseGen, error) {
		return newReverseGen(d, m.Funcs[0], []activity.Activity{activity.Dup, activity.Const}, true, false, false, "grad_tri")
	})
	if err != nil {
		t.Fatal(err)
	}
	var cached []string
	for _, b := range requestedFields(r.loops[r.cfg.Loops[0]]) {
		cached = append(cached, b.elem.String())
	}
	// %v (for the derivative of v*v): nothing else. %t (for sin's) is
	// rebuilt from it, a select over %v and %v*v (an edge value,
	// mergephi.go), by the recomputed condition.
	if len(cached) != 1 || cached[0] != "double" {
		t.Errorf("loop caches %v per iteration, want one double and no record of the branch taken", cached)
	}
}

// An LSTM-like gate: g[i] = 1/(1 + exp(-(w[i]*h[i] + b[i]))) with h
// overwritten by the gate (so h[i] must be cached) and w, b read-only
// (noalias). The
// exp could be rebuilt from values the reverse has anyway, but a library
// call costs more to run again than its cached result: the plan caches the
// exp and does not call it in the reverse sweep.
const gateIR = `
define double @gate(double* noalias %w, double* noalias %b, double* noalias %h, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %wp = getelementptr inbounds double, double* %w, i64 %i
  %bp = getelementptr inbounds double, double* %b, i64 %i
  %hp = getelementptr inbounds double, double* %h, i64 %i
  %wv = load double, double* %wp, align 8
  %bv = load double, double* %bp, align 8
  %hv = load double, double* %hp, align 8
  %a = call double @llvm.fmuladd.f64(double %wv, double %hv, double %bv)
  %na = fneg double %a
  %e = call double @llvm.exp.f64(double %na)
  %den = fadd double %e, 1.0
  %g = fdiv double 1.0, %den
  store double %g, double* %hp, align 8
  %s.next = fadd double %s, %g
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %s.next
}
declare double @llvm.fmuladd.f64(double, double, double)
declare double @llvm.exp.f64(double)
`

// gateGradient differentiates gateIR with its caches planned.
func gateGradient(t *testing.T) (*reverseGen, *ir.Func) {
	t.Helper()
	return plannedGradient(t, gateIR, []activity.Activity{activity.Dup, activity.Dup, activity.Dup, activity.Const}, "grad_gate")
}

// plannedGradient differentiates the first function of src (combined
// gradient name, arguments acts) with its caches planned.
func plannedGradient(t *testing.T, src string, acts []activity.Activity, name string) (*reverseGen, *ir.Func) {
	t.Helper()
	m := parseIR(t, src)
	f := m.Funcs[0]
	d := newDiffer(m, Options{})
	r, err := d.generateReverse(func() (*reverseGen, error) {
		return newReverseGen(d, f, acts, true, false, false, name)
	})
	if err != nil {
		t.Fatal(err)
	}
	return r, f
}

func TestLibmResultCached(t *testing.T) {
	t.Parallel()
	r, f := gateGradient(t)
	if r.plan.recompute[findValue(f, "e")] {
		t.Errorf("plan recomputes exp: cache %v, recompute %v", r.plan.cache, r.plan.recompute)
	}
	exps := countInsts(r.g, func(inst ir.Instruction) bool {
		c, ok := inst.(*ir.InstCall)
		return ok && irfacts.CalleeName(c) == "llvm.exp.f64"
	})
	if exps != 1 {
		t.Errorf("the gradient calls exp at %d sites, want 1 (the forward sweep's)", exps)
	}
}

// countInsts counts g's instructions that match.
func countInsts(g *ir.Func, match func(ir.Instruction) bool) int {
	n := 0
	for _, b := range g.Blocks {
		for _, inst := range b.Insts {
			if match(inst) {
				n++
			}
		}
	}
	return n
}

// TestSigmoidReverseOneDivision checks that the reverse of a sigmoid
// 1/(1+e) in a loop divides once: the plan recomputes the quotient (it
// caches e), so the reverse computes r = 1/den and multiplies, rather than
// dividing d by den and recomputing 1/den besides.
func TestSigmoidReverseOneDivision(t *testing.T) {
	t.Parallel()
	r, _ := gateGradient(t)
	divs := countInsts(r.g, func(inst ir.Instruction) bool { _, ok := inst.(*ir.InstFDiv); return ok })
	if divs != 2 {
		t.Errorf("the gradient has %d divisions, want 2 (the forward sweep's and d/den):\n%s", divs, r.g.LLString())
	}
}

// TestDivisionGradients runs reverses of divisions in loops that overwrite
// their inputs, both partials active: the sigmoid gate (the quotient
// recomputed from 1/(1+e)) and x/y stored over x and squared (the
// quotient read back), against analytic gradients to a few ulps.
func TestDivisionGradients(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "division_gradients.c")
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// A centred product: xc = x[i] - mu[i] and x[i] = c[i]*xc, x overwritten
// (its load must be cached), mu and c read-only (noalias). The reverse
// reads xc (for c's adjoint). Caching the load x[i] or xc costs the same 8
// bytes per iteration; the plan takes xc (Graph.BreakTies), so the reverse sweep
// neither reloads mu[i] nor subtracts again.
const centredIR = `
define double @centred(double* noalias %x, double* noalias %mu, double* noalias %c, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %xp = getelementptr inbounds double, double* %x, i64 %i
  %mp = getelementptr inbounds double, double* %mu, i64 %i
  %cp = getelementptr inbounds double, double* %c, i64 %i
  %xv = load double, double* %xp, align 8
  %mv = load double, double* %mp, align 8
  %xc = fsub double %xv, %mv
  %cv = load double, double* %cp, align 8
  %q = fmul double %cv, %xc
  store double %q, double* %xp, align 8
  %q2 = fmul double %q, %q
  %s.next = fadd double %s, %q2
  %i.next = add nuw i64 %i, 1
  %cc = icmp ult i64 %i.next, %n
  br i1 %cc, label %loop, label %exit
exit:
  ret double %s.next
}
`

func TestTiesCacheTheLaterValue(t *testing.T) {
	t.Parallel()
	r, f := plannedGradient(t, centredIR, []activity.Activity{activity.Dup, activity.Dup, activity.Dup, activity.Const}, "grad_centred")
	if !r.plan.cache[findValue(f, "xc")] || r.plan.cache[findValue(f, "xv")] || r.plan.recompute[findValue(f, "xc")] {
		t.Errorf("plan: cache %v, recompute %v; want xc cached, not x[i]", r.plan.cache, r.plan.recompute)
	}
	var cached []string
	for _, b := range requestedFields(r.loops[r.cfg.Loops[0]]) {
		cached = append(cached, b.elem.String())
	}
	if len(cached) != 1 || cached[0] != "double" {
		t.Errorf("loop caches %v per iteration, want one double (xc)", cached)
	}
	subs := countInsts(r.g, func(inst ir.Instruction) bool { _, ok := inst.(*ir.InstFSub); return ok })
	if subs != 1 {
		t.Errorf("the gradient subtracts at %d sites, want 1 (the forward sweep's):\n%s", subs, r.g.LLString())
	}
}

// TestTiesGradients runs the centred product (centredIR's loop, from C)
// and the same with the product's factor overwritten too, against analytic
// gradients.
func TestTiesGradients(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "ties_gradients.c")
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}
