package ad

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/value"
)

// iterNests are nests whose inner loop's trip count depends on the outer
// loop's induction variable, vectorized at -O2 and -O3 into a vector body
// and a scalar remainder: the join after them is decided per outer
// iteration by min.iters.check and cmp.n, functions of that count
// (pathdecide.go's iterationCond). trirun is GMM's triangle, j = i+1 .. d
// with a running index li carried across i; skew runs j = 0 .. d-i over
// q[i+j]; grow runs j = 0 .. i. In datacount the count is data (x[i]
// compared): its join keeps its record. xc is rewritten per component c,
// so the outer loops cache xc[i].
func iterNests(t *testing.T) string {
	t.Helper()
	return loopRunPrelude + testdataC(t, "iter_nests.c")
}

var iterWants = []string{"ok trirun[127]", "ok skew[127]", "ok grow[127]", "ok datacount[127]", "ok trirun_callee[127]", "ok skew_callee[127]"}

// TestIterationPathRun: the nests' gradients match central differences at
// every level, combined and split, with d = 0, 1, 2, 3, 5 and 7 (at d = 7 the
// inner loops take every way past the vector loop: skipped, run alone, run
// and followed by the remainder), and leak nothing.
func TestIterationPathRun(t *testing.T) {
	t.Parallel()
	runSizes(t, iterNests(t), "DIM", []string{"0", "1", "2", "3", "5", "7"},
		iterWants)
}

// TestIterationPathIR: at -O2 and -O3, no loop of trirun, skew or grow
// records the way taken past its vector loop (the joins are decided by
// paths whose conditions are rebuilt per outer iteration); datacount's
// count is data, and its outer loop keeps the record.
func TestIterationPathIR(t *testing.T) {
	t.Parallel()
	for _, o := range []string{"2", "3"} {
		m := preADModuleC(t, iterNests(t), o)
		for _, tc := range []struct {
			name   string
			record bool
		}{{"trirun", false}, {"skew", false}, {"grow", false}, {"datacount", true}} {
			for _, split := range []bool{false, true} {
				d, r := reverseOf(t, m, tc.name, split, "iter_"+tc.name)
				records := 0
				for b, phi := range r.predIdx {
					if r.cfg.LoopOf[b] != nil && isCached(r, phi) {
						records++
					}
				}
				if (records > 0) != tc.record {
					t.Errorf("-O%s %s (split %v): %d records of the way taken in loops, want some: %v", o, tc.name, split, records, tc.record)
				}
				d.dropFunc(r.g)
			}
		}
	}
}

// TestIterationCondIR: in triIR's outer loop, the join after the vector
// loop and its remainder (latch) is decided by its paths, from %small and
// %all, functions of i+1 (iterationCond); the way taken is not cached.
// The reverse entry counts of the remainder (an exact != loop left
// through its exit test) carry no clamp of a negative distance.
func TestIterationCondIR(t *testing.T) {
	t.Parallel()
	eachReverse(t, triIR, []activity.Activity{activity.Dup, activity.Dup, activity.Dup, activity.Const}, func(r *reverseGen, split bool) {
		latch := r.blockOf[findValue(r.f, "i1.next")]
		tree, ok := r.pathDecision(latch)
		if !ok {
			t.Fatalf("split=%v: the latch is not decided by paths", split)
		}
		conds := map[string]bool{}
		var walk func(d *decision)
		walk = func(d *decision) {
			if d == nil || d.pred != nil {
				return
			}
			conds[d.cond.Ident()] = true
			walk(d.onTrue)
			walk(d.onFalse)
		}
		walk(tree)
		if !conds["%small"] || !conds["%all"] {
			t.Errorf("split=%v: the latch's tree tests %v, want %%small and %%all", split, conds)
		}
		if p, ok := r.predIdx[latch]; ok && isCached(r, p) {
			t.Errorf("split=%v: the way into the latch is cached", split)
		}
		scalar := r.cfg.LoopOf[r.blockOf[findValue(r.f, "j")]]
		if len(r.exitPres[scalar]) == 0 {
			t.Fatalf("split=%v: the remainder's reverse does not restart its entry counter", split)
		}
		for _, x := range r.exitPres[scalar] {
			if negClamp(x.n, 8) {
				t.Errorf("split=%v: the remainder's entry count %s clamps a negative distance", split, x.n.Ident())
			}
		}
	})
}

// negClamp reports whether v, within depth operands, selects on a
// comparison "x < 0" (cacheplan.HeaderCount's clamp of a negative distance).
func negClamp(v value.Value, depth int) bool {
	inst, ok := v.(ir.Instruction)
	if !ok || depth < 0 {
		return false
	}
	if s, ok := inst.(*ir.InstSelect); ok {
		if c, ok := s.Cond.(*ir.InstICmp); ok && c.Pred == enum.IPredSLT && c.Y.Ident() == "0" {
			return true
		}
	}
	for _, op := range inst.Operands() {
		if negClamp(*op, depth-1) {
			return true
		}
	}
	return false
}

// downIR: two loops counting down inside an outer loop, left through ==
// tests (continuing while !=) at steps -1 and -2; they cache nothing (x is
// read only), so their reverses restart their counters from the exact
// count on entry (exitentry.go), computed without a clamp (cacheplan.ExitCount).
const downIR = `
define double @down_ir(double* noalias %x, i64 %n, i64 %k) {
entry:
  %go = icmp sgt i64 %n, 1
  %m2 = and i64 %n, -2
  br label %outer
outer:
  %c = phi i64 [ 0, %entry ], [ %c.next, %latch ]
  %e = phi double [ 0.0, %entry ], [ %e2, %latch ]
  %cf = sitofp i64 %c to double
  br i1 %go, label %one, label %latch
one:
  %i = phi i64 [ %n, %outer ], [ %i.next, %one ]
  %s = phi double [ %e, %outer ], [ %s.next, %one ]
  %im1 = add i64 %i, -1
  %p = getelementptr inbounds double, double* %x, i64 %im1
  %v = load double, double* %p, align 8
  %vc = fadd double %v, %cf
  %sq = fmul double %vc, %v
  %w = call double @llvm.sin.f64(double %sq)
  %s.next = fadd double %s, %w
  %i.next = add nsw i64 %i, -1
  %d1 = icmp eq i64 %i.next, 1
  br i1 %d1, label %two, label %one
two:
  %j = phi i64 [ %m2, %one ], [ %j.next, %two ]
  %t = phi double [ %s.next, %one ], [ %t.next, %two ]
  %jm1 = add i64 %j, -1
  %q = getelementptr inbounds double, double* %x, i64 %jm1
  %u = load double, double* %q, align 8
  %uu = fmul double %u, %u
  %wu = call double @llvm.cos.f64(double %uu)
  %t.next = fadd double %t, %wu
  %j.next = add nsw i64 %j, -2
  %d2 = icmp eq i64 %j.next, 0
  br i1 %d2, label %latch, label %two
latch:
  %e2 = phi double [ %e, %outer ], [ %t.next, %two ]
  %c.next = add nsw i64 %c, 1
  %dc = icmp slt i64 %c.next, %k
  br i1 %dc, label %outer, label %exit
exit:
  ret double %e2
}
declare double @llvm.sin.f64(double)
declare double @llvm.cos.f64(double)
`

// TestExitCountIR: the down-counting loops of downIR restart their
// counters on entry to their reverses, from counts that clamp no negative
// distance.
func TestExitCountIR(t *testing.T) {
	t.Parallel()
	eachReverse(t, downIR, []activity.Activity{activity.Dup, activity.Const, activity.Const}, func(r *reverseGen, split bool) {
		for _, name := range []string{"i", "j"} {
			l := r.cfg.LoopOf[r.blockOf[findValue(r.f, name)]]
			if len(r.exitPres[l]) == 0 {
				t.Errorf("split=%v: the loop of %%%s restarts no counter on entry to its reverse", split, name)
			}
			for _, x := range r.exitPres[l] {
				if negClamp(x.n, 8) {
					t.Errorf("split=%v: the entry count %s of the loop of %%%s clamps a negative distance", split, x.n.Ident(), name)
				}
			}
		}
	})
}

// TestExitCountRun: downIR's gradient against central differences, with
// n = 2, 5, 8 (the step -2 loop needs an even start: n & -2), combined and
// through a caller (split).
func TestExitCountRun(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "exit_count.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildCWithIR(t, src, downIR, o))
			for _, want := range []string{"ok down_n2[7]", "ok down_n5[7]", "ok down_n8[7]", "ok calldown_n2[7]", "ok calldown_n8[7]"} {
				if !strings.Contains(out, want) {
					t.Errorf("-O%s: no %q in\n%s", o, want, out)
				}
			}
		})
	}
}

// TestIterationPathShapesRun: testdata/iteration_path_shapes.c's gradients
// (path decisions from conditions computed each iteration, exit counts of
// != loops, growth on entry decided over several paths) against central
// differences at -O0..-O3, combined and split, and under valgrind at -O2.
func TestIterationPathShapesRun(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + testdataC(t, "iteration_path_shapes.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestIterationPathTriangleRun: testdata/iteration_path_triangles.c's
// gradients (triangles whose vectorized inner loop's bounds depend on the
// outer index) against central differences at -O2 and -O3, combined and
// split, for d = 0 (no outer iteration) to 17 (vector body and remainder),
// -O3 valgrind-checked.
func TestIterationPathTriangleRun(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + testdataC(t, "iteration_path_triangles.c")
	var wants []string
	for k := 1; k <= 7; k++ {
		wants = append(wants, fmt.Sprintf("ok tri%d[40]", k), fmt.Sprintf("ok tri%d_callee[40]", k))
	}
	for _, o := range []string{"2", "3"} {
		exe := buildC(t, src, o)
		for _, d := range []string{"0", "1", "2", "3", "5", "8", "17"} {
			checkWants(t, runEnv(t, exe, "DIM="+d), "-O"+o+" DIM="+d, wants)
		}
	}
	t.Run("leaks", func(t *testing.T) {
		runLeakCheckedEnv(t, buildC(t, src, "3"), "DIM=5")
	})
}

// TestIterationPathDeepTriangleRun: testdata/iteration_path_deep_triangles.c
// (triangles inside a loop around them, the inner bounds depending on both
// loops' counters): gradients against central differences at -O2 and -O3,
// combined and split, for d = 0, 1, 3, 5, 9, 17 and 1..4 rounds, one
// setting valgrind-checked.
func TestIterationPathDeepTriangleRun(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + testdataC(t, "iteration_path_deep_triangles.c")
	for _, o := range []string{"2", "3"} {
		exe := buildC(t, src, o)
		for _, d := range [][2]string{{"0", "2"}, {"1", "3"}, {"3", "1"}, {"5", "3"}, {"9", "4"}, {"17", "2"}} {
			out := runEnv(t, exe, "DIM="+d[0], "T="+d[1])
			checkWants(t, out, "-O"+o+" DIM, T = "+d[0]+", "+d[1], []string{"ok deep3[40]", "ok deep3_callee[40]", "ok deep4[40]", "ok deep4_callee[40]"})
		}
		t.Run("leaks", func(t *testing.T) {
			// T as the last setting above; skips only this subtest
			// without valgrind.
			runLeakCheckedEnv(t, exe, "DIM=9", "T=2")
		})
	}
}

// TestExitCountNestRun: testdata/exit_count_nests.c checks the entry
// counters recomputed from exact != loops without the clamp of a negative
// distance, and path decisions rebuilt per iteration: 64-bit != nests
// (steps 1 and -2, zero-trip where lo == hi), != loops under an invariant
// guard that skips them in every iteration (lo > hi), a loop too big to
// rotate leaving from its header at once, and a triangle whose inner start
// is a phi of the outer iteration. Central differences at -O2 and -O3,
// combined and split (the _callee variants), the zero-trip and skipped
// cases valgrind-checked.
func TestExitCountNestRun(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + testdataC(t, "exit_count_nests.c")
	for _, o := range []string{"2", "3"} {
		exe := buildC(t, src, o)
		for _, env := range [][4]string{{"2", "5", "3", "5"}, {"3", "3", "2", "1"}, {"4", "2", "1", "0"}, {"0", "1", "4", "9"}, {"1", "9", "1", "17"}} {
			fs := []string{"neguard", "tridiamond"}
			lo, _ := strconv.Atoi(env[0])
			hi, _ := strconv.Atoi(env[1])
			if lo <= hi {
				fs = append(fs, "nenest", "nestep", "hdrexit")
			}
			var wants []string
			for _, f := range fs {
				wants = append(wants, "ok "+f+"[36]", "ok "+f+"_callee[36]")
			}
			out := runEnv(t, exe, "LO="+env[0], "HI="+env[1], "R="+env[2], "DIM="+env[3])
			checkWants(t, out, fmt.Sprintf("-O%s LO HI R DIM = %v", o, env), wants)
		}
	}
	t.Run("leaks", func(t *testing.T) {
		exe := buildC(t, src, "2")
		for _, env := range [][2]string{{"3", "3"}, {"4", "2"}} {
			// R and DIM as the last setting above.
			runLeakCheckedEnv(t, exe, "LO="+env[0], "HI="+env[1], "R=1", "DIM=17")
		}
	})
}
