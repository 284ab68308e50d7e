package ad

import (
	"strings"
	"testing"
)

// TestPackedFloatPairs: structs of two floats copied as an i64 (a strided
// gather, kiss_fft's generic butterfly with its scratch copies) carry
// their derivatives as a <2 x float> (retype_packed.go), lanes taken out
// by trunc included, at every level and with AVX; the gradients against
// analytic values and central differences. Above -O0 the link stopped
// ("holds a float together with other data"). With AVX the program is
// optimized the way the link-time pipeline does it (no loop
// vectorization before AD: LLVM's default pipeline makes the gather a
// <4 x i64> of pairs built by insertelement, which stays a stop).
func TestPackedFloatPairs(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "packed_float_pairs.c")
	for _, o := range optLevels {
		for _, avx := range []bool{false, true} {
			o, avx := o, avx
			name := "O" + o
			if avx {
				name += "-march=x86-64-v3"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				var exe string
				var err error
				if avx {
					exe, err = tryBuildOpt(t, "prog.c", src, o, linkedLoops, "-Xclang", "-disable-llvm-passes", "-march=x86-64-v3")
				} else {
					exe, err = tryBuildC(t, src, o)
				}
				if err != nil {
					t.Fatal(err)
				}
				if out := run(t, exe); strings.Contains(out, "FAIL") {
					t.Fatal(out)
				}
			})
		}
	}
}
