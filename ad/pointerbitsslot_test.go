package ad

import (
	"strings"
	"testing"
)

// TestPointerBitsInIntegerSlot: a pointer into the input passed as an
// integer to a setter that stores it into the caller's integer slot, read
// back and cast to a pointer (testdata/pointer_bits_in_integer_slots.c).
// Where the setter's parameter holds only pointers, the retyped setter
// stores a pointer and the slot gets a shadow: the gradient matches
// central differences at every level (it was once zero for the entries
// read through the slot). Where the setter also stores plain integers,
// its store stays an integer store and the pointer read back has no
// shadow: the link stops, naming the access (through the pointer read
// back, or returned by a getter reading the slot) and the call the bits
// leave through. Bits that only go to an alignment check stop nothing.
func TestPointerBitsInIntegerSlot(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "pointer_bits_in_integer_slots.c")
	for _, fn := range []string{"via_putp", "via_puti", "checked"} {
		for _, o := range optLevels {
			t.Run(fn+"/O"+o, func(t *testing.T) {
				t.Parallel()
				run(t, buildC(t, src, o, "-DCASE="+fn))
			})
		}
	}
	for _, c := range []struct{ fn, through string }{
		{"mixed", "a pointer read from memory without a shadow"},
		{"getter", "a pointer returned without a shadow by the call to 'getp'"},
	} {
		for _, o := range []string{"0", "2"} {
			t.Run(c.fn+"/O"+o, func(t *testing.T) {
				t.Parallel()
				_, err := tryBuildC(t, src, o, "-DCASE="+c.fn)
				if err == nil || !strings.Contains(err.Error(), "cannot differentiate '"+c.fn+"'") || !strings.Contains(err.Error(), c.through) ||
					!strings.Contains(err.Error(), "leave as an integer (the call to 'puti')") {
					t.Fatalf("-O%s: want the error naming the access and the pointer's bits leaving through 'puti', got %v", o, err)
				}
			})
		}
	}
}
