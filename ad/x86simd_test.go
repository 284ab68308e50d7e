package ad

import (
	"strings"
	"testing"
)

// TestSSEFloatBits: vector math written with <immintrin.h> (testdata/
// sse_float_bits.c, built with -mavx2): pshufd on a float vector's bits,
// lane sign masks and _mm_andnot_ps (built by insertelement chains at
// -O0), _mm_permutevar_ps/_mm256_permutevar8x32_ps with constant and
// run-time indices, hadd/hsub, _mm_dp_ps, _mm_min_ps/_mm_max_ps. Reverse
// and forward derivatives against central differences, every level.
func TestSSEFloatBits(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "sse_float_bits.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o, "-mavx2"))
			if !strings.Contains(out, "0 failures") {
				t.Errorf("%s", out)
			}
		})
	}
}
