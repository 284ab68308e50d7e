package ad

import (
	"context"
	"fmt"
	"github.com/gozyme/gozyme/ad/activity"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/metadata"
)

// hintLoops are small loops of the kind the optimizer before AD vectorizes
// with a scalar remainder (small components: centre, scale, a triangular
// product, a squared norm, as in a mixture model's objective), and loops
// with the programmer's pragmas: no unrolling, a vector width and an
// interleave count, no vectorizing.
func hintLoops(t *testing.T) string {
	t.Helper()
	return loopRunPrelude + testdataC(t, "hint_loops.c")
}

// TestLoopHintsRun: the gradients and forward-mode derivatives match central
// differences at every level, combined and split, with components of 1 to 9 coordinates (no vector
// loop, a remainder only, both), and leak nothing.
func TestLoopHintsRun(t *testing.T) {
	t.Parallel()
	runSizes(t, hintLoops(t), "DIM", []string{"1", "2", "4", "9"},
		[]string{"ok hcomps[29]", "ok hpragma[12]", "ok hcomps_callee[11]", "ok fwd hcomps", "ok fwd hpragma"})
}

// hintsOf lists the hint names of loop ID id (sorted), "" for none.
func hintsOf(id *metadata.Tuple) string {
	if id == nil {
		return ""
	}
	var names []string
	for _, f := range id.Fields[1:] {
		names = append(names, hintName(f))
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// copied is loop ID id with the hints a copy of the loop keeps.
func copied(id *metadata.Tuple) *metadata.Tuple {
	out := &metadata.Tuple{Fields: []metadata.Field{id}}
	for _, f := range id.Fields[1:] {
		if copyHint(hintName(f)) {
			out.Fields = append(out.Fields, f)
		}
	}
	return out
}

// TestLoopHintsIR: in the gradients of hcomps and hpragma (the optimizer
// before AD vectorizing, as a pragma makes it), every loop's copy in the
// forward sweep has a loop ID of its own (distinct, naming itself) with the
// loop's hints, and its reverse back edge one with the hints about
// vectorizing and unrolling: at least isvectorized for the loops the
// optimizer vectorized and unroll.disable for the pragma's. Both add
// vector width 1 and interleave count 1 (no vectorizing after AD) where
// the loop is inside another and its hints decide nothing about
// vectorizing, and only there (the scalar twin of a loop given two
// versions, loopversion.go). The
// tangent loops of the forward-mode derivatives keep the hints, adding
// none; the module passes LLVM's verifier.
func TestLoopHintsIR(t *testing.T) {
	t.Parallel()
	for _, o := range []string{"2", "3"} {
		m := preADModuleC(t, hintLoops(t), o)
		for _, name := range []string{"hcomps", "hpragma"} {
			for _, split := range []bool{false, true} {
				_, r := reverseOf(t, m, name, split, "hints_"+name)
				seen := map[string]bool{}
				for _, l := range r.cfg.Loops {
					if len(l.Latches) != 1 {
						continue
					}
					latch := l.Latches[0]
					pid := loopIDOf(*termMetadata(latch.Term))
					var src []string
					if pid != nil {
						for _, f := range pid.Fields[1:] {
							src = append(src, hintName(f))
							seen[hintName(f)] = true
						}
					}
					decided := false
					for _, n := range src {
						decided = decided || strings.HasPrefix(n, "llvm.loop.vectorize.") || n == "llvm.loop.interleave.count" || n == "llvm.loop.isvectorized"
					}
					add := !decided && l.Parent != nil
					seen[fmt.Sprintf("added %v", add)] = true
					want := func(keep func(string) bool) string {
						var w []string
						for _, n := range src {
							if keep(n) {
								w = append(w, n)
							}
						}
						if add {
							w = append(w, "llvm.loop.interleave.count", "llvm.loop.vectorize.width")
						}
						sort.Strings(w)
						return strings.Join(w, " ")
					}
					fid := loopIDOf(*termMetadata(r.fwdTail[latch].Term))
					if twin := r.d.versionTwins[fid]; add && twin != nil {
						// Two versions where versionLoops can (loopversion.go):
						// the scalar twin is the loop's ID where it cannot.
						fid = twin
					}
					if want(copyHint) == "" {
						if fid != nil {
							t.Errorf("-O%s %s (split %v): the forward copy of the loop at %s has loop ID %v, want none", o, name, split, l.Header.Ident(), fid)
						}
					} else if fid == nil || fid == pid || !fid.Distinct || fid.Fields[0] != fid || hintsOf(fid) != want(copyHint) {
						t.Errorf("-O%s %s (split %v): the forward copy of the loop at %s has hints %q, want a distinct loop ID of its own with hints %q",
							o, name, split, l.Header.Ident(), hintsOf(fid), want(copyHint))
					}
					if add && !noVectorID(fid) {
						t.Errorf("-O%s %s (split %v): the forward copy of the loop at %s does not disable vectorizing: %v", o, name, split, l.Header.Ident(), fid)
					}
					var got *metadata.Tuple
					for _, b := range r.g.Blocks {
						if br, ok := b.Term.(*ir.TermBr); ok && br.Target == r.rev[latch] {
							if id := loopIDOf(br.Metadata); id != nil {
								got = id
							}
						}
					}
					if twin := r.d.versionTwins[got]; add && twin != nil {
						got = twin // versioned like the forward copy
					}
					if hintsOf(got) != want(reverseHint) || (got != nil && got.Fields[0] != got) {
						t.Errorf("-O%s %s (split %v): the reverse of the loop at %s has hints %q, want %q",
							o, name, split, l.Header.Ident(), hintsOf(got), want(reverseHint))
					}
					if add && !noVectorID(got) {
						t.Errorf("-O%s %s (split %v): the reverse of the loop at %s does not disable vectorizing: %v", o, name, split, l.Header.Ident(), got)
					}
				}
				for _, want := range map[string][]string{
					"hcomps":  {"llvm.loop.isvectorized", "llvm.loop.unroll.runtime.disable", "added true", "added false"},
					"hpragma": {"llvm.loop.unroll.disable", "llvm.loop.isvectorized", "added false"},
				}[name] {
					if !seen[want] {
						t.Errorf("-O%s %s: no loop with %s", o, name, want)
					}
				}
			}
		}
		// Forward mode: the tangent loops keep the hints too.
		for _, name := range []string{"hcomps", "hpragma"} {
			var f *ir.Func
			for _, g := range m.Funcs {
				if g.Name() == name {
					f = g
				}
			}
			d := newDiffer(m, Options{})
			fg, err := d.forward(f, []activity.Activity{activity.Dup, activity.Const}, 1, false)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := irutil.NewCFG(fg.f)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range cfg.Loops {
				for _, latch := range l.Latches {
					pid := loopIDOf(*termMetadata(latch.Term))
					if pid == nil {
						continue
					}
					fid := loopIDOf(*termMetadata(fg.blk[latch].Term))
					if fid == nil || fid == pid || fid.Fields[0] != fid || hintsOf(fid) != hintsOf(copied(pid)) {
						t.Errorf("-O%s %s forward mode: the tangent loop at %s has hints %q, want %q", o, name, l.Header.Ident(), hintsOf(fid), hintsOf(copied(pid)))
					}
				}
			}
		}
		dir := t.TempDir()
		ll := filepath.Join(dir, "ad.ll")
		if err := irutil.WriteText(m, ll); err != nil {
			t.Fatal(err)
		}
		if out, err := toolchains.Run(context.Background(), "opt", "-passes=verify", "-disable-output", ll); err != nil {
			t.Fatalf("-O%s: the module with the gradients fails LLVM's verifier: %v\n%s", o, err, out)
		}
	}
}

// A loop with two latches, as a `continue` leaves it: both back edges carry
// the loop's one ID, with hints.
const twoLatchIR = `
define double @latch2_ir(double* %x, i32 %n32) {
entry:
  %n = sext i32 %n32 to i64
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %low ], [ %i.next, %high ]
  %s = phi double [ 0.0, %entry ], [ %s.low, %low ], [ %s.high, %high ]
  %p = getelementptr inbounds double, double* %x, i64 %i
  %v = load double, double* %p, align 8
  %i.next = add nsw i64 %i, 1
  %c = fcmp olt double %v, 1.0
  br i1 %c, label %low, label %high
low:
  %t = fmul double %s, %v
  %s.low = fadd double %t, 1.0
  %cl = icmp slt i64 %i.next, %n
  br i1 %cl, label %head, label %exit, !llvm.loop !0
high:
  %sq = fmul double %v, %v
  %s.high = fadd double %s, %sq
  %ch = icmp slt i64 %i.next, %n
  br i1 %ch, label %head, label %exit, !llvm.loop !0
exit:
  %r = phi double [ %s.low, %low ], [ %s.high, %high ]
  ret double %r
}
!0 = distinct !{!0, !1, !2}
!1 = !{!"llvm.loop.unroll.disable"}
!2 = !{!"llvm.loop.vectorize.width", i32 1}
`

// noVectorID reports whether loop ID id states vector width 1 and
// interleave count 1, as `#pragma clang loop vectorize(disable)
// interleave(disable)` does.
func noVectorID(id *metadata.Tuple) bool {
	if id == nil {
		return false
	}
	found := 0
	for _, f := range id.Fields[1:] {
		t, ok := f.(*metadata.Tuple)
		if !ok || len(t.Fields) != 2 {
			continue
		}
		if c, ok := t.Fields[1].(*constant.Int); ok && c.X.Int64() == 1 && (hintName(t) == "llvm.loop.vectorize.width" || hintName(t) == "llvm.loop.interleave.count") {
			found++
		}
	}
	return found == 2
}

// TestLoopHintsTwoLatches: the forward sweep's copy of a loop with two
// latches, and its tangent copy in forward mode, give both latches one loop
// ID of their own with the loop's hints, so LLVM keeps them; and the
// reverse of the forward-mode derivative (reverse over forward) still
// finds them.
func TestLoopHintsTwoLatches(t *testing.T) {
	t.Parallel()
	want := "llvm.loop.unroll.disable llvm.loop.vectorize.width"
	eachReverse(t, twoLatchIR, []activity.Activity{activity.Dup, activity.Const}, func(r *reverseGen, split bool) {
		l := r.cfg.Loops[0]
		if len(l.Latches) != 2 {
			t.Fatalf("the loop has %d latches, want 2", len(l.Latches))
		}
		pid := loopIDOf(*termMetadata(l.Latches[0].Term))
		id := latchID(l, func(b *ir.Block) ir.Terminator { return r.fwdTail[b].Term })
		if id == nil || id == pid || hintsOf(id) != want {
			t.Errorf("split=%v: the forward copy's latches carry loop ID %v with hints %q, want one ID of their own with %q", split, id, hintsOf(id), want)
		}
	})
	m := parseIR(t, twoLatchIR)
	d := newDiffer(m, Options{})
	fg, err := d.forward(m.Funcs[0], []activity.Activity{activity.Dup, activity.Const}, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := irutil.NewCFG(fg.f)
	if err != nil {
		t.Fatal(err)
	}
	id := latchID(cfg.Loops[0], func(b *ir.Block) ir.Terminator { return fg.blk[b].Term })
	if id == nil || hintsOf(id) != want {
		t.Fatalf("forward mode: the tangent loop's latches carry loop ID %v with hints %q, want one ID with %q", id, hintsOf(id), want)
	}
	r, err := d.generateReverse(func() (*reverseGen, error) {
		return newReverseGen(d, fg.g, []activity.Activity{activity.Dup, activity.Dup, activity.Const}, true, false, false, "grad_fwd")
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := hintsOf(r.reverseLoopID(r.cfg.Loops[0])); got != want {
		t.Errorf("reverse over forward: the reverse tangent loop has hints %q, want %q", got, want)
	}
}

// TestLoopHintsTwoLatchesRun: latch2_ir's gradient and forward-mode
// derivative against central differences at every level (x takes both
// latches).
func TestLoopHintsTwoLatchesRun(t *testing.T) {
	t.Parallel()
	runIRWants(t, irDriver("latch2_ir"), twoLatchIR, optLevels, false, "ok latch2_ir[5]", "ok forward")
}
