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
// shadow: the link stops, naming the access and the call the bits leave
// through.
func TestPointerBitsInIntegerSlot(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "pointer_bits_in_integer_slots.c")
	for _, fn := range []string{"via_putp", "via_puti"} {
		for _, o := range optLevels {
			t.Run(fn+"/O"+o, func(t *testing.T) {
				t.Parallel()
				run(t, buildC(t, src, o, "-DCASE="+fn))
			})
		}
	}
	for _, o := range []string{"0", "2"} {
		t.Run("mixed/O"+o, func(t *testing.T) {
			t.Parallel()
			_, err := tryBuildC(t, src, o, "-DCASE=mixed")
			if err == nil || !strings.Contains(err.Error(), "cannot differentiate 'mixed'") ||
				!strings.Contains(err.Error(), "leave as an integer (the call to 'puti')") {
				t.Fatalf("-O%s: want the error naming the pointer's bits leaving through 'puti', got %v", o, err)
			}
		})
	}
}
