package adfuzz

import (
	"math"
	"strconv"
	"strings"
)

// iv is a closed interval bounding every value an expression can take at the
// evaluation point and at the points the finite differences probe. The
// generator uses it to keep every libm call inside its smooth domain (log and
// sqrt of values bounded away from 0, fabs away from its kink, ...) and every
// value of moderate size, so that central differences are accurate.
type iv struct{ lo, hi float64 }

func point(v float64) iv          { return iv{v, v} }
func sym(b float64) iv            { return iv{-b, b} }
func (a iv) widen(d float64) iv   { return iv{a.lo - d, a.hi + d} }
func (a iv) maxAbs() float64      { return math.Max(math.Abs(a.lo), math.Abs(a.hi)) }
func (a iv) above(m float64) bool { return a.lo >= m }

// awayFromZero reports whether the interval keeps a distance m from 0.
func (a iv) awayFromZero(m float64) bool { return a.lo >= m || a.hi <= -m }

func hull(a, b iv) iv { return iv{math.Min(a.lo, b.lo), math.Max(a.hi, b.hi)} }

func (a iv) add(b iv) iv { return iv{a.lo + b.lo, a.hi + b.hi} }
func (a iv) sub(b iv) iv { return iv{a.lo - b.hi, a.hi - b.lo} }

func (a iv) mul(b iv) iv {
	p := []float64{a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}
	return iv{minOf(p), maxOf(p)}
}

func (a iv) scale(k float64) iv { return a.mul(point(k)) }

// inv is 1/a for an interval away from zero.
func (a iv) inv() iv { return iv{1 / a.hi, 1 / a.lo} }

// square is a*a.
func (a iv) square() iv {
	if a.lo >= 0 {
		return iv{a.lo * a.lo, a.hi * a.hi}
	}
	if a.hi <= 0 {
		return iv{a.hi * a.hi, a.lo * a.lo}
	}
	return iv{0, math.Max(a.lo*a.lo, a.hi*a.hi)}
}

// mono applies a nondecreasing function.
func (a iv) mono(f func(float64) float64) iv { return iv{f(a.lo), f(a.hi)} }

// abs is |a|.
func (a iv) abs() iv {
	if a.lo >= 0 {
		return a
	}
	if a.hi <= 0 {
		return iv{-a.hi, -a.lo}
	}
	return iv{0, a.maxAbs()}
}

// powc is a^p for a > 0 and a constant p.
func (a iv) powc(p float64) iv {
	x, y := math.Pow(a.lo, p), math.Pow(a.hi, p)
	return iv{math.Min(x, y), math.Max(x, y)}
}

// powv is a^b for a > 0.
func (a iv) powv(b iv) iv {
	p := []float64{math.Pow(a.lo, b.lo), math.Pow(a.lo, b.hi), math.Pow(a.hi, b.lo), math.Pow(a.hi, b.hi)}
	return iv{minOf(p), maxOf(p)}
}

// damped is the bound of an accumulator updated as acc = k*acc + g with
// |k| < 1 and g in [-gb, gb], starting from a value in a: it never leaves it.
func damped(a iv, k, gb float64) iv {
	b := math.Max(a.maxAbs(), gb/(1-math.Abs(k)))
	return sym(b)
}

func minOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = math.Min(m, x)
	}
	return m
}

func maxOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs[1:] {
		m = math.Max(m, x)
	}
	return m
}

// lit writes a double constant as C source: always with a point or an
// exponent, negative values in parentheses.
func lit(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	if v < 0 {
		return "(" + s + ")"
	}
	return s
}

// round3 rounds to three decimals, the precision of generated constants.
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func sqrtF(v float64) float64 { return math.Sqrt(v) }
