package ad

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
)

// sharedRecIR is function name(x, n): for i < 3, a loop a over j < c = n/3
// adds exp(x[i·c+j]²), then a loop b over q < cb (c, or cm1 = c-1) adds
// exp(1.5·x[i·c+q]); both cache their exp results, one double per
// iteration, or two with two (a adds exp(x[i·c+j]) too, b exp(x[i·c+q])).
// guard, when set, skips loop b in odd i.
func sharedRecIR(name, cb string, guard, two bool) string {
	sa, sb := "  %sa.next = fadd double %sa, %e", "  %sb.next = fadd double %sb, %eb"
	if two {
		sa = "  %e2 = call double @llvm.exp.f64(double %v)\n  %sa.e = fadd double %sa, %e\n  %sa.next = fadd double %sa.e, %e2"
		sb = "  %eb2 = call double @llvm.exp.f64(double %u)\n  %sb.e = fadd double %sb, %eb\n  %sb.next = fadd double %sb.e, %eb2"
	}
	mid := "  br label %b"
	latchPhi := "  %s2 = phi double [ %sb.next, %b ]"
	if guard {
		mid = `  %odd = and i64 %i, 1
  %even = icmp eq i64 %odd, 0
  br i1 %even, label %b, label %latch`
		latchPhi = "  %s2 = phi double [ %sb.next, %b ], [ %sa.next, %mid ]"
	}
	return fmt.Sprintf(`
define double @%s(double* %%x, i32 %%n) {
entry:
  %%nn = sext i32 %%n to i64
  %%c = udiv i64 %%nn, 3
  %%cm1 = add i64 %%c, -1
  br label %%outer
outer:
  %%i = phi i64 [ 0, %%entry ], [ %%i.next, %%latch ]
  %%s = phi double [ 0.0, %%entry ], [ %%s2, %%latch ]
  %%base = mul i64 %%i, %%c
  br label %%a
a:
  %%j = phi i64 [ 0, %%outer ], [ %%j.next, %%a ]
  %%sa = phi double [ %%s, %%outer ], [ %%sa.next, %%a ]
  %%k = add i64 %%base, %%j
  %%p = getelementptr inbounds double, double* %%x, i64 %%k
  %%v = load double, double* %%p, align 8
  %%v2 = fmul double %%v, %%v
  %%e = call double @llvm.exp.f64(double %%v2)
%s
  %%j.next = add nuw i64 %%j, 1
  %%ca = icmp ult i64 %%j.next, %%c
  br i1 %%ca, label %%a, label %%mid
mid:
%s
b:
  %%q = phi i64 [ 0, %%mid ], [ %%q.next, %%b ]
  %%sb = phi double [ %%sa.next, %%mid ], [ %%sb.next, %%b ]
  %%kb = add i64 %%base, %%q
  %%pb = getelementptr inbounds double, double* %%x, i64 %%kb
  %%u = load double, double* %%pb, align 8
  %%h = fmul double %%u, 0x3FF8000000000000
  %%eb = call double @llvm.exp.f64(double %%h)
%s
  %%q.next = add nuw i64 %%q, 1
  %%cq = icmp ult i64 %%q.next, %%%s
  br i1 %%cq, label %%b, label %%latch
latch:
%s
  %%i.next = add nuw i64 %%i, 1
  %%co = icmp ult i64 %%i.next, 3
  br i1 %%co, label %%outer, label %%exit
exit:
  ret double %%s2
}

declare double @llvm.exp.f64(double)
`, name, sa, mid, sb, cb, latchPhi)
}

// TestSharedRecordIR: loops a and b, siblings with the same trip count,
// keep their records in one buffer (one record type with the fields of
// both, one slot), whether or not b runs in every outer iteration; with
// another count (c-1) each keeps its own; loops caching one double each
// keep their own too (plain arrays, read and written contiguously).
// Combined and split.
func TestSharedRecordIR(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, cb   string
		guard, two bool
		shared     bool
	}{
		{"same", "c", false, true, true},
		{"skip", "c", true, true, true},
		{"other", "cm1", false, true, false},
		{"single", "c", false, false, false},
		{"singleskip", "c", true, false, false},
	} {
		eachReverse(t, sharedRecIR("f", tc.cb, tc.guard, tc.two), []activity.Activity{activity.Dup, activity.Const}, func(r *reverseGen, split bool) {
			var a, b *loopCache
			for _, l := range r.cfg.Loops {
				switch l.Header.Name() {
				case "a":
					a = r.loops[l]
				case "b":
					b = r.loops[l]
				}
			}
			if a == nil || b == nil || a.rec == nil || b.rec == nil {
				t.Fatalf("%s split=%v: loops a and b should both cache their exp", tc.name, split)
			}
			if got := a.rec == b.rec && a.slot == b.slot && a.cap == b.cap; got != tc.shared {
				t.Errorf("%s split=%v: shared record %v, want %v (a %s, b %s)", tc.name, split, got, tc.shared, a.rec, b.rec)
			}
			// Which loops' values loop a's record holds fields for.
			holds := map[string]bool{}
			for _, lc := range []*loopCache{a, b} {
				for fv := range lc.fields {
					if pv, ok := r.primalOf[fv]; ok && lc.rec == a.rec {
						if l := r.cfg.LoopOf[r.blockOf[pv]]; l != nil {
							holds[l.Header.Name()] = true
						}
					}
				}
			}
			if tc.shared && (!holds["a"] || !holds["b"] || (a.owner == nil) == (b.owner == nil)) {
				t.Errorf("%s split=%v: the record %s should hold fields of both loops (%v), owned by one", tc.name, split, a.rec, holds)
			}
			if !tc.shared && (holds["b"] || a.owner != nil || b.owner != nil) {
				t.Errorf("%s split=%v: loop a's record %s should hold its own fields only (%v)", tc.name, split, a.rec, holds)
			}
		})
	}
}

// The gradients of the three shapes against central differences, called
// directly (combined, buffers retained between calls) and through a caller
// (split: the shared buffer on the tape), and leak-checked (the shared
// buffer is retained and freed once).
func TestSharedRecordRun(t *testing.T) {
	t.Parallel()
	names := []string{"sr_same", "sr_skip", "sr_other"}
	ll := sharedRecIR(names[0], "c", false, true) +
		strings.Replace(sharedRecIR(names[1], "c", true, true), "\ndeclare double @llvm.exp.f64(double)\n", "", 1) +
		strings.Replace(sharedRecIR(names[2], "cm1", false, true), "\ndeclare double @llvm.exp.f64(double)\n", "", 1)
	src := memoryPrelude + testdataC(t, "shared_record.c")
	var wants []string
	for _, f := range []string{"sr_same", "sr_skip", "sr_other", "twice_same", "twice_skip", "twice_other"} {
		wants = append(wants, fmt.Sprintf("ok %s[%d]", f, 11))
	}
	runIRWants(t, src, ll, optLevels, true, wants...)
}
