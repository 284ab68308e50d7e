package adfuzz

import (
	"fmt"
	"math"
)

// ex is a generated C expression and a bound of its values.
type ex struct {
	s  string
	iv iv
}

// maxMag is the largest magnitude the generator lets an expression reach
// before scaling it down.
const maxMag = 20.0

// expr is a random smooth expression over leaves, of depth at most depth.
func (g *gen) expr(depth int, leaves []ex) ex {
	if depth <= 0 || len(leaves) == 0 || g.r.IntN(5) == 0 {
		return g.leaf(leaves)
	}
	var e ex
	if g.r.IntN(2) == 0 {
		e = g.unary(g.expr(depth-1, leaves))
	} else {
		e = g.binary(g.expr(depth-1, leaves), g.expr(depth-1, leaves))
	}
	return squash(e)
}

// exprOf is an expression of depth 1..depth that uses leaves[0] at least once
// (so that a helper's parameter or a loop's element is never dead).
func (g *gen) exprOf(depth int, leaves []ex) ex {
	e := g.expr(depth, leaves)
	if e.s == leaves[0].s {
		e = g.unary(e)
	} else if !containsWord(e.s, leaves[0].s) {
		e = squash(g.binary(g.unary(leaves[0]), e))
	}
	return e
}

func (g *gen) leaf(leaves []ex) ex {
	if len(leaves) == 0 || g.r.IntN(10) == 0 {
		return g.constant()
	}
	return leaves[g.r.IntN(len(leaves))]
}

func (g *gen) constant() ex {
	v := round3(g.uniform(-2, 2))
	if math.Abs(v) < 0.1 {
		v = 0.5
	}
	return ex{lit(v), point(v)}
}

// squash scales an expression down when it may grow past maxMag.
func squash(e ex) ex {
	m := e.iv.maxAbs()
	if m <= maxMag {
		return e
	}
	k := round3(maxMag / 2 / m)
	if k < 1e-3 {
		k = 1e-3
	}
	return ex{fmt.Sprintf("(%s * %s)", e.s, lit(k)), e.iv.scale(k)}
}

// unary applies a random libm function valid on a's interval.
func (g *gen) unary(a ex) ex {
	for {
		switch g.r.IntN(16) {
		case 0:
			return ex{"sin(" + a.s + ")", sym(1)}
		case 1:
			return ex{"cos(" + a.s + ")", sym(1)}
		case 2:
			return ex{"tanh(" + a.s + ")", a.iv.mono(math.Tanh)}
		case 3:
			if a.iv.hi <= 3 {
				return ex{"exp(" + a.s + ")", a.iv.mono(math.Exp)}
			}
			k := round3(2 / a.iv.maxAbs())
			b := a.iv.scale(k)
			return ex{fmt.Sprintf("exp(%s * %s)", a.s, lit(k)), b.mono(math.Exp)}
		case 4:
			if a.iv.above(0.2) {
				return ex{"log(" + a.s + ")", a.iv.mono(math.Log)}
			}
			return ex{fmt.Sprintf("log(1.0 + %s * %s)", a.s, a.s), a.iv.square().add(point(1)).mono(math.Log)}
		case 5:
			if a.iv.above(0.2) {
				return ex{"sqrt(" + a.s + ")", a.iv.mono(math.Sqrt)}
			}
			return ex{fmt.Sprintf("sqrt(0.5 + %s * %s)", a.s, a.s), a.iv.square().add(point(0.5)).mono(math.Sqrt)}
		case 6:
			if a.iv.above(0.2) {
				p := []float64{0.5, 1.5, 2.5, -0.5, -1, 3, 1.7}[g.r.IntN(7)]
				return ex{fmt.Sprintf("pow(%s, %s)", a.s, lit(p)), a.iv.powc(p)}
			}
			if g.r.IntN(2) == 0 {
				return ex{fmt.Sprintf("pow(%s, 2.0)", a.s), a.iv.square()}
			}
			return ex{fmt.Sprintf("pow(%s, 3.0)", a.s), a.iv.mono(func(v float64) float64 { return v * v * v })}
		case 7:
			if a.iv.awayFromZero(0.1) {
				return ex{"fabs(" + a.s + ")", a.iv.abs()}
			}
		case 8:
			return ex{"atan(" + a.s + ")", a.iv.mono(math.Atan)}
		case 9:
			if a.iv.above(-0.7) {
				return ex{"log1p(" + a.s + ")", a.iv.mono(math.Log1p)}
			}
		case 10:
			if a.iv.hi <= 3 {
				return ex{"expm1(" + a.s + ")", a.iv.mono(math.Expm1)}
			}
		case 11:
			if a.iv.awayFromZero(0.1) {
				return ex{"cbrt(" + a.s + ")", a.iv.mono(math.Cbrt)}
			}
		case 12:
			return ex{"erf(" + a.s + ")", a.iv.mono(math.Erf)}
		case 13:
			if a.iv.maxAbs() <= 3 {
				return ex{"sinh(" + a.s + ")", a.iv.mono(math.Sinh)}
			}
		case 14:
			if a.iv.maxAbs() <= 3 {
				c := math.Cosh(a.iv.maxAbs())
				return ex{"cosh(" + a.s + ")", iv{1, c}}
			}
		case 15:
			return ex{fmt.Sprintf("(%s * %s)", a.s, a.s), a.iv.square()}
		}
	}
}

// binary combines a and b with a random operation valid on their intervals.
func (g *gen) binary(a, b ex) ex {
	for {
		switch g.r.IntN(9) {
		case 0, 1:
			return ex{fmt.Sprintf("(%s + %s)", a.s, b.s), a.iv.add(b.iv)}
		case 2:
			return ex{fmt.Sprintf("(%s - %s)", a.s, b.s), a.iv.sub(b.iv)}
		case 3, 4:
			return ex{fmt.Sprintf("(%s * %s)", a.s, b.s), a.iv.mul(b.iv)}
		case 5:
			if b.iv.awayFromZero(0.3) {
				return ex{fmt.Sprintf("(%s / %s)", a.s, b.s), a.iv.mul(b.iv.inv())}
			}
			d := b.iv.square().add(point(1))
			return ex{fmt.Sprintf("(%s / (1.0 + %s * %s))", a.s, b.s, b.s), a.iv.mul(d.inv())}
		case 6:
			if a.iv.above(0.2) && b.iv.maxAbs() <= 3 {
				return ex{fmt.Sprintf("pow(%s, %s)", a.s, b.s), a.iv.powv(b.iv)}
			}
		case 7:
			if b.iv.above(0.2) {
				return ex{fmt.Sprintf("atan2(%s, %s)", a.s, b.s), sym(math.Pi / 2)}
			}
		case 8:
			if a.iv.awayFromZero(0.1) || b.iv.awayFromZero(0.1) {
				hi := math.Hypot(a.iv.maxAbs(), b.iv.maxAbs())
				return ex{fmt.Sprintf("hypot(%s, %s)", a.s, b.s), iv{0, hi}}
			}
		}
	}
}

// containsWord reports whether s mentions name as a whole token.
func containsWord(s, name string) bool {
	for i := 0; i+len(name) <= len(s); i++ {
		if s[i:i+len(name)] != name {
			continue
		}
		before := i == 0 || !isIdent(s[i-1])
		after := i+len(name) == len(s) || !isIdent(s[i+len(name)])
		if before && after {
			return true
		}
	}
	return false
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
