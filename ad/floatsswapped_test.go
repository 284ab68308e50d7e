package ad

import (
	"strings"
	"testing"
)

// TestFloatsSwappedThroughInt: floats swapped with memcpy through an int
// temporary (testdata/floats_swapped_through_int.c). At -O0 the copies
// stay memcpy calls whose int end was taken for integers by its IR type,
// so the reverse of the copy back out of the temporary moved no adjoint
// (a gradient of (0, 6) instead of (3, 3)); the type analysis, which sees
// the float's bytes arrive there, now decides. Each gradient matches
// central differences at every level; an int permutation swapped the same
// way keeps building, and where the temporary is also read as an integer
// the gradient is exact or the link stops.
func TestFloatsSwappedThroughInt(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "floats_swapped_through_int.c")
	for _, fn := range []string{"direct", "hidden", "ints", "used_as_int"} {
		for _, o := range optLevels {
			t.Run(fn+"/O"+o, func(t *testing.T) {
				t.Parallel()
				exe, err := tryBuildC(t, src, o, "-DCASE="+fn)
				if err != nil {
					if fn != "used_as_int" || !strings.Contains(err.Error(), "cannot differentiate 'used_as_int'") {
						t.Fatalf("-O%s: %v", o, err)
					}
					return
				}
				run(t, exe)
			})
		}
	}
}
