package ad

import "testing"

// Structs that mix a pointer, a double and an int, copied by memcpy and by
// struct assignment: the double's adjoint flows back through the copy, the
// pointer's shadow is copied with it, the int carries nothing.
func TestMixedStructCopies(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "mixed_struct_copies.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// layoutPrefixCopies copy the first bytes of structs that mix pointers
// (and floats) with a tail: C++ copies an object's data members, not its
// padding (Eigen's CwiseBinaryOp is two pointers, an empty functor and
// padding: 24 bytes, of which a copy moves 16). The shadow copy of the
// forward sweep (pointer fields) and the adjoint copy of the reverse (float
// fields) cover the fields wholly inside the copied bytes; they trapped on
// a count that is not a whole number of elements, which the optimizer
// made an unconditional ud2 after the copy.
func layoutPrefixCopies(t *testing.T) string {
	t.Helper()
	return memoryPrelude + testdataC(t, "layout_prefix_copies.c")
}

// TestLayoutCopyPrefix: gradients through copies of a struct's first
// bytes against central differences at every level, and under valgrind.
func TestLayoutCopyPrefix(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, layoutPrefixCopies(t), o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, layoutPrefixCopies(t), "2")) })
}
