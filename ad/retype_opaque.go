package ad

// Opaque float bits: the integers of a rewritten body that the analysis
// says hold floats but that stay integers (retype_check.go reports those
// derivatives reach).

import (
	"fmt"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// recordOpaque records the integer values of f that the analysis says
// hold floats but that stay integers: mixed with other data, or moved by
// instructions the rewrite does not retype.
func (w *bodyRewrite) recordOpaque() {
	check := func(v value.Value, what interface{}) {
		if _, ok := w.back[v]; ok {
			return
		}
		if bc, ok := v.(*ir.InstBitCast); ok && isFloatScalarOrVector(bc.From.Type()) {
			return // the float is right there (retype_check.go follows it)
		}
		if !w.rt.ta.Known(v) {
			return
		}
		switch {
		case w.rt.ta.Mixed(v):
			w.rt.opaque[v] = fmt.Sprintf("holds a float together with other data (%s)", w.rt.ta.Tree(v))
		case w.rt.ta.FloatOf(v) != nil && w.rt.carrierType(v) == nil:
			w.rt.opaque[v] = fmt.Sprintf("holds a %s as an integer", w.rt.ta.FloatOf(v))
		case w.rt.ta.FloatOf(v) != nil:
			w.rt.opaque[v] = fmt.Sprintf("holds a %s moved by %s, which gozyme does not retype", w.rt.ta.FloatOf(v), opcodeOf(what))
		}
	}
	for _, p := range w.f.Params {
		if _, ok := p.Typ.(*types.IntType); ok {
			check(p, p)
		}
	}
	for _, b := range w.f.Blocks {
		for _, inst := range b.Insts {
			v, ok := inst.(value.Value)
			if !ok || w.added[inst] {
				continue
			}
			switch v.Type().(type) {
			case *types.IntType, *types.VectorType:
				check(v, inst)
				if ld, ok := inst.(*ir.InstLoad); ok && w.rt.opaque[ld] == "" {
					if why := w.partialFloatRead(ld); why != "" {
						w.rt.opaque[ld] = why
					}
				}
			}
		}
	}
}

// partialFloatRead explains an integer load narrower than the floats of
// the memory it indexes into by a variable offset (a byte-wise copy of
// doubles: each byte is part of one), "" otherwise: when the floats
// known there cannot overlap the bytes it reads, at any element the
// index reaches (a char field after an array element's doubles), it reads
// none of them.
func (w *bodyRewrite) partialFloatRead(ld *ir.InstLoad) string {
	g, ok := irutil.StripCasts(ld.Src).(*ir.InstGetElementPtr)
	if !ok || w.rt.ta.FloatOf(ld) != nil {
		return ""
	}
	variable := false
	for _, idx := range g.Indices {
		if _, ok := intConstOf(idx); !ok {
			variable = true
		}
	}
	size := irutil.StoreSize(ld.ElemType)
	if !variable {
		return ""
	}
	if big := w.rt.ta.FloatOverlap(g, size); big > 0 {
		return fmt.Sprintf("reads %d bytes of memory holding %d-byte floats through a variable index (parts of floats)", size, big)
	}
	return ""
}

// opcodeOf names an instruction's kind for messages.
func opcodeOf(x interface{}) string {
	s := fmt.Sprintf("%T", x)
	if len(s) > len("*ir.Inst") && s[:len("*ir.Inst")] == "*ir.Inst" {
		return s[len("*ir.Inst"):]
	}
	if _, ok := x.(*ir.Param); ok {
		return "a parameter"
	}
	return s
}
