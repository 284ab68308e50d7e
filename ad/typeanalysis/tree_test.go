package typeanalysis

import (
	"testing"
)

func TestConcreteJoin(t *testing.T) {
	cases := []struct{ a, b, want Concrete }{
		{Unknown, Double, Double},
		{Double, Unknown, Double},
		{Double, Double, Double},
		{Double, Float, Anything},
		{Integer, Pointer, Anything},
		{Anything, Double, Anything},
		{Integer, Integer, Integer},
	}
	for _, c := range cases {
		if got := c.a.Join(c.b); got != c.want {
			t.Errorf("%s join %s = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

func TestTreeInsertAndAt(t *testing.T) {
	tr := NewTree()
	if !tr.Insert(Pointer, 0) || tr.Insert(Pointer, 0) {
		t.Fatal("inserting a new fact changes the tree once")
	}
	tr.Insert(Double, 0, -1)
	tr.Insert(Integer, 0, 8, 0)
	if got := tr.At(0, 24); got != Double {
		t.Errorf("[0,24] = %s, want the repeated Float@double", got)
	}
	if got := tr.At(0, -1); got != Double {
		t.Errorf("[0,-1] = %s", got)
	}
	if got := tr.At(0, 8, 0); got != Integer {
		t.Errorf("[0,8,0] = %s", got)
	}
	// A conflicting fact joins to Anything, never one of the two.
	tr.Insert(Float, 0, -1)
	if got := tr.At(0, 16); got != Anything {
		t.Errorf("conflict at [0,-1] reads %s, want Anything", got)
	}
	// Out of bounds paths are dropped.
	if tr.Insert(Double, 0, MaxOffset+1) || tr.Insert(Double, 0, 0, 0, 0, 0, 0) || tr.Insert(Double, -1) {
		t.Error("paths out of bounds must not be kept")
	}
}

func TestTreeDataUnder(t *testing.T) {
	// double** p: p points to a pointer to doubles.
	tr := Of(Pointer, 0)
	tr.Insert(Pointer, 0, 0)
	tr.Insert(Double, 0, 0, -1)
	mem := tr.Data(0)
	if mem.At(0) != Pointer || mem.At(0, 5) != Double {
		t.Fatalf("Data(0) = %s", mem)
	}
	back := mem.Under(0)
	back.Insert(Pointer, 0)
	if !back.Equal(tr) {
		t.Errorf("Under(Data) = %s, want %s", back, tr)
	}
}

func TestTreeShiftMemory(t *testing.T) {
	mem := NewTree()
	mem.put([]int64{0}, Double)
	mem.put([]int64{8}, Pointer)
	mem.put([]int64{8, 0}, Integer)
	mem.put([]int64{-1, 4}, Float)
	// Seen from 8 bytes further (a getelementptr by 8).
	got := mem.ShiftMemory(-8)
	want := NewTree()
	want.put([]int64{0}, Pointer)
	want.put([]int64{0, 0}, Integer)
	want.put([]int64{-1, 4}, Float)
	if !got.Equal(want) {
		t.Errorf("shift by -8 = %s, want %s", got, want)
	}
	// And back: the source gains the fact at its own offset.
	if again := got.ShiftMemory(8); again.At(8) != Pointer || again.At(0) != Unknown {
		t.Errorf("shift back = %s", again)
	}
}

func TestTreeWindowPlace(t *testing.T) {
	// struct {double d; long n; float f[2];} in memory.
	mem := NewTree()
	mem.put([]int64{0}, Double)
	for b := int64(8); b < 16; b++ {
		mem.put([]int64{b}, Integer)
	}
	mem.put([]int64{16}, Float)
	mem.put([]int64{20}, Float)
	// An 8-byte read of the first field.
	if w := mem.Window(0, 8); w.ScalarAt(0, 8) != Double {
		t.Errorf("window [0,8) = %s", w)
	}
	// A 16-byte read of the first two fields (<2 x i64>).
	w := mem.Window(0, 16)
	if w.ScalarAt(0, 8) != Double || w.ScalarAt(8, 8) != Integer {
		t.Errorf("window [0,16) = %s", w)
	}
	// The two floats read as one i64: both floats, at 0 and 4.
	w = mem.Window(16, 8)
	if w.At(0) != Float || w.At(4) != Float || w.ScalarAt(0, 8) != Anything {
		t.Errorf("window [16,24) = %s", w)
	}
	// Half a double is nothing a type describes: left out.
	if w := mem.Window(4, 8); w.At(0) != Unknown {
		t.Errorf("window [4,12) = %s, the partial double must be left out", w)
	}
	// Writing a value at 8 places its facts there.
	v := Of(Pointer, 0)
	v.Insert(Double, 0, 0)
	placed := v.Place(8, 8)
	if placed.At(8) != Pointer || placed.At(8, 0) != Double {
		t.Errorf("place at 8 = %s", placed)
	}
	// Repeated facts fill a window with elements.
	arr := NewTree()
	arr.put([]int64{-1}, Double)
	if w := arr.Window(40, 16); w.ScalarAt(0, 8) != Double || w.ScalarAt(8, 8) != Double {
		t.Errorf("window of an array = %s", w)
	}
}

func TestTreeScalarAt(t *testing.T) {
	v := Of(Double, 0)
	if v.ScalarAt(0, 8) != Double {
		t.Error("a double in 8 bytes")
	}
	if v.ScalarAt(0, 4) != Anything {
		t.Error("4 bytes of a double are not one type")
	}
	v.Insert(Integer, 4)
	if v.ScalarAt(0, 8) != Anything {
		t.Error("a double overlapped by an integer byte is a conflict")
	}
	ints := NewTree()
	for b := int64(0); b < 4; b++ {
		ints.Insert(Integer, b)
	}
	if ints.ScalarAt(0, 4) != Integer || ints.ScalarAt(0, 8) != Integer || NewTree().ScalarAt(0, 8) != Unknown {
		t.Error("integers and unknown bytes")
	}
}

func TestTreeTruncateAndString(t *testing.T) {
	v := Of(Float, 0)
	v.Insert(Float, 4)
	if got := v.Truncate(4); got.At(0) != Float || got.At(4) != Unknown {
		t.Errorf("truncate to 4 = %s", got)
	}
	if s := v.String(); s != "{[0]:Float@float, [4]:Float@float}" {
		t.Errorf("String = %s", s)
	}
}

func TestTreeStringShortensIntegerRuns(t *testing.T) {
	v := Of(Pointer, 0)
	v.Insert(Double, 0, 0)
	for b := int64(8); b < 16; b++ {
		v.Insert(Integer, 0, b)
	}
	if s := v.String(); s != "{[0]:Pointer, [0,0]:Float@double, [0,8..15]:Integer}" {
		t.Errorf("String = %s", s)
	}
}

// A value's tree that grows past MaxFacts loses its facts two or more
// pointers deep, all of them whatever order they came in, and takes no
// more; its own and its pointee's facts stay.
func TestJoinFactBound(t *testing.T) {
	var trees [2]*Tree
	for run := range trees {
		cur := NewTree()
		joinFact(cur, nil, encode([]int64{-1}), Pointer)
		joinFact(cur, nil, encode([]int64{-1, 0}), Pointer)
		for i := 0; i < MaxFacts+10; i++ {
			k := i
			if run == 1 {
				k = MaxFacts + 9 - i // the other order
			}
			joinFact(cur, nil, encode([]int64{-1, int64(k % 1000), int64(k / 1000)}), Integer)
		}
		if !cur.shallow || cur.Len() != 2 || cur.At(-1, 0) != Pointer {
			t.Fatalf("run %d: shallow %v, %d facts: %v", run, cur.shallow, cur.Len(), cur)
		}
		if joinFact(cur, nil, encode([]int64{-1, 8, 8}), Integer) || !joinFact(cur, nil, encode([]int64{-1, 8}), Integer) {
			t.Errorf("run %d: a deep fact taken, or a pointee fact refused", run)
		}
		trees[run] = cur
	}
	if !trees[0].Equal(trees[1]) {
		t.Errorf("the order of the facts changed the tree: %v, %v", trees[0], trees[1])
	}
}
