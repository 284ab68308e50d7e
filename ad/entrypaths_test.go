package ad

import (
	"sort"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
)

// TestEntryPathsIR: remIR's remainder is entered past mid's branch, which
// does not dominate it: its factor's guard is the decision over the
// outer loop's paths, testing %small and %full (entryPaths). Where %full
// is computed in the outer loop, the paths are not known on entry to it,
// and the remainder grows on its own entry.
func TestEntryPathsIR(t *testing.T) {
	inLoop := strings.Replace(strings.Replace(remIR, "  %full = icmp eq i64 %nvec, %d\n", "", 1),
		"  br i1 %full, label %latch", "  %full = icmp eq i64 %nvec, %i\n  br i1 %full, label %latch", 1)
	for _, tc := range []struct {
		name, src, top string
		conds          []string
	}{
		{"invariant", remIR, "outer", []string{"%full", "%small"}},
		{"cmp.n in the loop", inLoop, "rem", nil},
	} {
		eachReverse(t, tc.src, []Activity{Dup, Const, Const}, func(r *reverseGen, split bool) {
			rem := r.cfg.LoopOf[r.blockOf[findValue(r.f, "j")]]
			top, chain, ok := r.entryGrowth(rem)
			if !ok || top.Header.Name() != tc.top {
				t.Fatalf("%s split=%v: the remainder grows on entry to %v (%v), want %s", tc.name, split, top, ok, tc.top)
			}
			if tc.conds == nil {
				return
			}
			var got []string
			for _, g := range chain[0].guards {
				if g.paths == nil {
					t.Errorf("%s split=%v: guard %s is a single branch", tc.name, split, g.cond.Ident())
				}
				for _, c := range g.conds() {
					got = append(got, c.Ident())
				}
			}
			sort.Strings(got)
			if strings.Join(got, " ") != strings.Join(tc.conds, " ") {
				t.Errorf("%s split=%v: the remainder's entry tests %v, want %v", tc.name, split, got, tc.conds)
			}
		})
	}
}

// TestEntryPathsGMMIR: at -O2 and -O3, iterNests' loops copying xc[j]
// into q (GMM's qx loop: a vector loop and a remainder that caches xc[j])
// grow on entry to the component loop or further out, the remainder under
// a decision over paths.
func TestEntryPathsGMMIR(t *testing.T) {
	for _, o := range []string{"2", "3"} {
		m := preADModuleC(t, iterNests, o)
		d, r := reverseOf(t, m, "trirun", false, "paths_trirun")
		byPaths := 0
		grownAround(r, func(l, top *irutil.Loop, chain []countFactor) {
			for _, g := range chain[0].guards {
				if g.paths != nil {
					byPaths++
				}
			}
		})
		if byPaths == 0 {
			t.Errorf("-O%s: no loop of trirun grows on entry to a loop around it under a decision over paths", o)
		}
		d.dropFunc(r.g)
	}
}

// TestEntryPathsRun: with the remainders growing on entry to the nest,
// iterNests run clean under valgrind (no record written past its buffer,
// none leaked) where the vector loops run alone (d = 4, 8: the remainder
// skipped by cmp.n), with their remainders (5, 7) and not at all (1), and
// their gradients match central differences.
func TestEntryPathsRun(t *testing.T) {
	for _, o := range []string{"2", "3"} {
		t.Run("O"+o, func(t *testing.T) {
			exe := buildC(t, iterNests, o)
			for _, dim := range []string{"1", "4", "5", "7", "8"} {
				t.Setenv("DIM", dim)
				out := runLeakChecked(t, exe)
				for _, want := range iterWants {
					if !strings.Contains(out, want) {
						t.Errorf("-O%s DIM=%s: no %q in\n%s", o, dim, want, out)
					}
				}
			}
		})
	}
}

// grownAround calls f for each loop of r with records that grows them on
// entry to a loop around it, top, with the trip counts of chain.
func grownAround(r *reverseGen, f func(l, top *irutil.Loop, chain []countFactor)) {
	for _, l := range r.cfg.Loops {
		if r.loops[l].rec == nil {
			continue
		}
		if top, chain, ok := r.entryGrowth(l); ok && top != l {
			f(l, top, chain)
		}
	}
}
