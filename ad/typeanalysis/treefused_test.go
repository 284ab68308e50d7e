package typeanalysis

import (
	"math/rand"
	"testing"
)

// randomTree is a tree of up to n facts on random paths near the bounds
// (offsets -1, small, and around MaxOffset; lengths up to MaxDepth).
func randomTree(r *rand.Rand, n int) *Tree {
	offs := []int64{-1, 0, 1, 4, 8, 12, 16, 24, MaxOffset - 8, MaxOffset}
	t := NewTree()
	for i := 0; i < n; i++ {
		path := make([]int64, 1+r.Intn(MaxDepth))
		for j := range path {
			path[j] = offs[r.Intn(len(offs))]
		}
		if r.Intn(3) == 0 {
			path[0] = 0
		}
		t.put(path, Concrete(1+r.Intn(int(Anything))))
	}
	return t
}

// TestTreeFusedForms checks that the rules' fused operations give the
// trees of the compositions they replace.
func TestTreeFusedForms(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		tr := randomTree(r, 1+r.Intn(12))
		delta := []int64{-16, -8, -1, 0, 4, 8, 24, MaxOffset}[r.Intn(8)]
		n := []int64{1, 4, 8, 16, 24, 40}[r.Intn(6)]
		check := func(what string, got, want *Tree) {
			t.Helper()
			if !got.Equal(want) {
				t.Fatalf("%s of %s: %s, want %s", what, tr, got, want)
			}
		}
		check("shiftedPointee", tr.shiftedPointee(delta), tr.Data(0).ShiftMemory(delta).Under(0))
		check("repeatingPointee", tr.repeatingPointee(), tr.Data(0).Repeating().Under(0))
		check("pointeeWindow", tr.pointeeWindow(n), tr.Data(0).Window(0, n))
		check("placedUnder", tr.placedUnder(n), tr.Place(0, n).Under(0))
	}
}

// TestTreeKeyBounds checks that paths outside the bounds never name a
// fact: their keys are no tree's.
func TestTreeKeyBounds(t *testing.T) {
	tr := NewTree()
	tr.Insert(Double, 0)
	tr.Insert(Pointer, MaxOffset)
	for _, path := range [][]int64{{MaxOffset + 1}, {-2}, {0, MaxOffset + 1}, {0, 0, 0, 0, 0, 0}, {}} {
		if c := tr.m[encode(path)]; c != Unknown {
			t.Errorf("path %v names %s", path, c)
		}
		if encode(path) != noKey {
			t.Errorf("path %v packs to %#x, not noKey", path, encode(path))
		}
	}
	for _, path := range [][]int64{{0}, {MaxOffset}, {0, -1, MaxOffset, -1, 7}} {
		if got := decode(encode(path)); len(got) != len(path) || encode(got) != encode(path) {
			t.Errorf("path %v decodes to %v", path, got)
		}
		for i := range path {
			if decode(encode(path))[i] != path[i] {
				t.Errorf("path %v decodes to %v", path, decode(encode(path)))
			}
		}
	}
}
