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

// TestM128UnionByValue: a union of __m128 and four floats passed and
// returned by value (testdata/m128_union_by_value.c), moved by clang as
// { double, double } and read by SROA through <2 x double> lanes, as
// <2 x float> pairs, and as the halves of i64 lanes. Those reads become
// float-lane reads before AD (floatpun.go) and the derivatives match the
// analytic ones at -O1..-O3 (they had been zero or wrong). At -O0 the
// doubles go through memory and calls, which gozyme cannot follow yet:
// the link stops naming them, never a wrong gradient.
func TestM128UnionByValue(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "m128_union_by_value.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			if o == "0" {
				_, err := tryBuildC(t, src, o)
				if err == nil || !strings.Contains(err.Error(), "holds floats as double") {
					t.Fatalf("want the link stopped at the floats moved as doubles, got %v", err)
				}
				return
			}
			out := run(t, buildC(t, src, o))
			if !strings.Contains(out, "0 failures") {
				t.Errorf("%s", out)
			}
		})
	}
}

// TestFloatPairsAsWordsStop: floats read as 64-bit words and split with
// lshr 32 and trunc (testdata/float_pairs_as_words.c). The type analysis
// keeps the floats' facts through the byte moves, so the words are seen to
// hold floats that stay integers and the link stops naming them at every
// level (the shifts had made them integers: a silent zero gradient).
func TestFloatPairsAsWordsStop(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "float_pairs_as_words.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			exe, err := tryBuildC(t, src, o)
			if err == nil {
				// A derivative, if one is ever made, must be right.
				if out := run(t, exe); !strings.Contains(out, "0 failures") {
					t.Errorf("%s", out)
				}
				return
			}
			if !strings.Contains(err.Error(), "carries a derivative as an integer") {
				t.Fatalf("want the link stopped at the words holding floats, got %v", err)
			}
		})
	}
}
