package ad

import (
	"strings"
	"testing"
)

// TestIntStoreOverFloat: integers stored over doubles that carry
// derivatives (a bit pattern memcpy'd over one, a union's integer member,
// two 64-bit patterns over two doubles) leave floats with a zero
// derivative: both sweeps clear their shadow. Gradients, reverse and
// forward, against central finite differences at every level
// (testdata/int_store_over_float.c).
func TestIntStoreOverFloat(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "int_store_over_float.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if strings.Contains(out, "FAIL") || strings.Count(out, "done") != 3 {
				t.Fatal(out)
			}
		})
	}
}

// TestIntStoreOverHalfFloat: two 32-bit words copied over the halves of
// a double clear its whole derivative where the type analysis knows the
// double (-O2, -O3); where it cannot tell the floats' sizes in the array
// (floats and integers stored at the same variable index, -O0 and -O1)
// the partial copy stops the link, naming it.
func TestIntStoreOverHalfFloat(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "int_store_over_float.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			exe, err := tryBuildC(t, src, o, "-DHALVES")
			if err != nil {
				if !strings.Contains(err.Error(), "cannot delimit") || !strings.Contains(err.Error(), ".c:88:") || !strings.Contains(err.Error(), "'f3'") {
					t.Fatal(err)
				}
				return
			}
			out := run(t, exe)
			if strings.Contains(out, "FAIL") || !strings.Contains(out, "halves done") {
				t.Fatal(out)
			}
		})
	}
}

// TestIntStoreOverFloatVariant: a struct copy whose integer field overlays
// another variant's double clears that double's derivative. At -O1 the
// type analysis keeps no per-field facts for the array of structs filled
// at a variable index (Integer at every offset), so the store is not seen
// as overwriting a float and the old derivative stays: a known gap.
func TestIntStoreOverFloatVariant(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "int_store_over_float.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			if o == "1" {
				t.Skip("known wrong gradient: the type analysis loses the struct array's double field at a variable index")
			}
			out := run(t, buildC(t, src, o, "-DVARIANT"))
			if strings.Contains(out, "FAIL") || !strings.Contains(out, "variant done") {
				t.Fatal(out)
			}
		})
	}
}
