package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
)

// undefLanesSrc differentiates the vector shapes the SLP and loop
// vectorizers make out of scalar code, whose unused lanes are undef or
// poison (a splat of a scalar, a shuffle with undef mask elements, one
// lane of a pair, a <4 x float>, a reduction), in reverse mode against
// central differences and in forward mode against the reverse gradient.
func undefLanesSrc(t *testing.T) string {
	t.Helper()
	return checkPrelude + testdataC(t, "undef_lanes.c")
}

// TestUndefLanes: derivatives of vectorized code whose unused lanes are
// undefined are those of the scalar code (a NaN came from 0·undef in a
// dead lane summed into a live one), at every level, with wider vectors
// (-march=native) and with fast-math reductions.
func TestUndefLanes(t *testing.T) {
	t.Parallel()
	for _, flags := range [][]string{nil, {"-march=native"}, {"-ffast-math"}} {
		for _, o := range optLevels {
			t.Run("O"+o+strings.Join(flags, ""), func(t *testing.T) {
				out := run(t, buildC(t, undefLanesSrc(t), o, flags...))
				if strings.Contains(out, "FAIL") {
					t.Error(out)
				}
			})
		}
	}
}

// twoInputUndefIR multiplies a splat of x by a two-input shuffle whose
// second lane is undef: no operand has a zero lane to select, so the
// refinement shuffles in a zero vector. The reverse multiplies the dead
// lane's adjoint (0) by it and sums both lanes of the splat into x.
const twoInputUndefIR = `
define double @two_input(double %x, double %y) {
entry:
  %a = insertelement <2 x double> poison, double %x, i64 0
  %xs = shufflevector <2 x double> %a, <2 x double> poison, <2 x i32> zeroinitializer
  %b = insertelement <2 x double> poison, double %y, i64 0
  %ys = shufflevector <2 x double> %b, <2 x double> poison, <2 x i32> zeroinitializer
  %s = shufflevector <2 x double> %xs, <2 x double> %ys, <2 x i32> <i32 2, i32 undef>
  %p = fmul <2 x double> %xs, %s
  %q = fmul <2 x double> %p, %xs
  %r = extractelement <2 x double> %q, i64 0
  ret double %r
}
`

// TestUndefTwoInputShuffle: d(x²y)/dx and d(x²y)/dy of two_input in
// reverse and forward mode, at every level.
func TestUndefTwoInputShuffle(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "undef_two_input_shuffle.c")
	runIRWants(t, src, twoInputUndefIR, optLevels, false, "ok dx:", "ok dy:", "ok dx forward", "ok dy forward")
}

// TestRefineUndefText: refineUndef leaves no undef or poison operand or
// mask element in two_input, and shuffles in a zero vector for %s.
func TestRefineUndefText(t *testing.T) {
	t.Parallel()
	m, err := irutil.ParseText("two_input.ll", []byte(twoInputUndefIR))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	if err := refineUndef(f); err != nil {
		t.Fatal(err)
	}
	text := f.LLString()
	for _, bad := range []string{"undef", "poison"} {
		if strings.Contains(text, bad) {
			t.Errorf("%s left in\n%s", bad, text)
		}
	}
	if !strings.Contains(text, "<2 x double> zeroinitializer, <2 x i32> <i32 0, i32 2>") {
		t.Errorf("no zero lane shuffled into %%s:\n%s", text)
	}
}
