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
// a double clear its whole derivative at every level: at -O0 and -O1 the
// array's doubles are stored at a variable index, and the type analysis
// keeps them per element of the array (strided.go), apart from the
// integers stored over one of them.
func TestIntStoreOverHalfFloat(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "int_store_over_float.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o, "-DHALVES"))
			if strings.Contains(out, "FAIL") || !strings.Contains(out, "halves done") {
				t.Fatal(out)
			}
		})
	}
}

// TestIntStoreOverFloatVariant: a struct copy whose integer field overlays
// another variant's double clears that double's derivative. At -O1 the
// array of structs is filled and overwritten at variable indices only: the
// type analysis keeps its fields per element (strided.go).
func TestIntStoreOverFloatVariant(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "int_store_over_float.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o, "-DVARIANT"))
			if strings.Contains(out, "FAIL") || !strings.Contains(out, "variant done") {
				t.Fatal(out)
			}
		})
	}
}

// TestIntCopyOverPartOfFloat: integer bytes copied over part of a float
// (12 bytes over a double and the low half of the next, 4 bytes over the
// low half of one, 6 bytes over a float and the low half of the next)
// leave the whole float with a zero derivative, in both sweeps, whether
// the copy stays a memcpy (-O0) or becomes integer stores. Gradients
// against the analytic gradient that holds the touched floats constant
// (testdata/int_copy_over_part_of_float.c). 4 bytes over the high half of
// a double keep its low bits, scaled anew: the link stops at every level
// (at -O2 and -O3 the store is merged into integer arithmetic on the
// double's bits, which stops it too).
func TestIntCopyOverPartOfFloat(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "int_copy_over_part_of_float.c")
	for _, mode := range []string{"0", "1", "2", "3"} {
		for _, o := range optLevels {
			t.Run("mode"+mode+"/O"+o, func(t *testing.T) {
				exe, err := tryBuildC(t, src, o, "-DMODE="+mode)
				if mode == "1" {
					if err == nil || !strings.Contains(err.Error(), "overwrites the sign and exponent") && !strings.Contains(err.Error(), "carries a derivative as an integer") {
						t.Fatalf("want the link to stop, got %v", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				out := run(t, exe)
				if strings.Contains(out, "FAIL") || !strings.Contains(out, "mode "+mode+" done") {
					t.Fatal(out)
				}
			})
		}
	}
}

// TestIntOverFloatInArrays: integers stored over floats in arrays of
// structs and unions at a variable index, on the heap (no facts of the
// elements: the bytes stored are cleared as a float store's would be) and
// on the stack (facts per element), in reverse, forward and batched
// forward mode (testdata/int_over_float_in_arrays.c).
func TestIntOverFloatInArrays(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "int_over_float_in_arrays.c")
	for _, mode := range []string{"0", "1", "2", "3"} {
		for _, o := range optLevels {
			t.Run("mode"+mode+"/O"+o, func(t *testing.T) {
				out := run(t, buildC(t, src, o, "-DMODE="+mode))
				if strings.Contains(out, "FAIL") || !strings.Contains(out, "done 0") {
					t.Fatal(out)
				}
			})
		}
	}
}

// TestIntPairsThroughWalkingPointer: an int pointer walking a header
// that shares its allocation with doubles carrying derivatives (kiss_fft's
// factors), writing two ints a step: the analysis cannot delimit the
// doubles there, but the pair writes whole 8-byte words of integers, whose
// shadow the sweeps clear; the derivative is exact in both modes at every
// level. One int a step may overwrite half a double: the link stops
// (-O2 folds the factors of the constant length: nothing to stop)
// (testdata/int_pairs_walking_pointer.c).
func TestIntPairsThroughWalkingPointer(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "int_pairs_walking_pointer.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	for _, o := range []string{"0", "1"} {
		_, err := tryBuildC(t, src, o, "-DSINGLE")
		if err == nil || !strings.Contains(err.Error(), "at places whose floats gozyme cannot delimit") {
			t.Errorf("-O%s -DSINGLE: want the stop for half a double, got %v", o, err)
		}
	}
}

// TestFloatExponentWrites: integers written over a double's sign and
// exponent that keep its other bits stop the link where the double
// carries a derivative (its derivative would be the old one scaled, not
// zero), at every level; over a double without one they run
// (testdata/float_exponent_writes.c).
func TestFloatExponentWrites(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "float_exponent_writes.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			run(t, buildC(t, src, o))
			_, err := tryBuildC(t, src, o, "-DACTIVE")
			if err == nil || !strings.Contains(err.Error(), "overwrites the sign and exponent") && !strings.Contains(err.Error(), "carries a derivative as an integer") {
				t.Fatalf("-DACTIVE: want the link to stop, got %v", err)
			}
		})
	}
}
