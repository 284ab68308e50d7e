package irutil

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/value"
)

// HasInvoke reports whether f has invoke terminators.
func HasInvoke(f *ir.Func) bool {
	for _, b := range f.Blocks {
		if _, ok := b.Term.(*ir.TermInvoke); ok {
			return true
		}
	}
	return false
}

// CloneWithoutUnwind returns a copy of f, not added to any module, in which
// every invoke is a call followed by a branch to its normal destination and
// the blocks reached only by unwinding are gone: the function as it runs
// when nothing throws. Instructions keep their metadata.
func CloneWithoutUnwind(f *ir.Func) (*ir.Func, error) {
	params := make([]*ir.Param, len(f.Params))
	vmap := map[value.Value]value.Value{}
	for i, p := range f.Params {
		np := ir.NewParam(p.Name(), p.Typ)
		if p.IsUnnamed() {
			np = ir.NewParam("", p.Typ)
		}
		np.Attrs = p.Attrs
		params[i] = np
		vmap[p] = np
	}
	g := ir.NewFunc(f.Name(), f.Sig.RetType, params...)
	g.Sig.Variadic = f.Sig.Variadic
	g.FuncAttrs = f.FuncAttrs
	g.Metadata = f.Metadata
	// Blocks reachable without unwinding, in their original order.
	reach := map[*ir.Block]bool{}
	var visit func(b *ir.Block)
	visit = func(b *ir.Block) {
		if reach[b] {
			return
		}
		reach[b] = true
		if inv, ok := b.Term.(*ir.TermInvoke); ok {
			visit(inv.NormalRetTarget.(*ir.Block))
			return
		}
		for _, s := range Succs(b) {
			visit(s)
		}
	}
	visit(f.Blocks[0])
	bmap := map[*ir.Block]*ir.Block{}
	for _, b := range f.Blocks {
		if reach[b] {
			nb := g.NewBlock(b.Name())
			if b.IsUnnamed() {
				nb.SetName("")
			}
			bmap[b] = nb
			vmap[b] = nb
		}
	}
	identity := func(v value.Value) value.Value { return v }
	for _, b := range f.Blocks {
		nb := bmap[b]
		if nb == nil {
			continue
		}
		for _, inst := range b.Insts {
			c, err := cloneKeepMetadata(inst, identity)
			if err != nil {
				return nil, err
			}
			if p, ok := c.(*ir.InstPhi); ok {
				// Drop incomings from blocks that are gone.
				var incs []*ir.Incoming
				for _, in := range p.Incs {
					if reach[in.Pred.(*ir.Block)] {
						incs = append(incs, in)
					}
				}
				p.Incs = incs
			}
			nb.Insts = append(nb.Insts, c)
			if v, ok := inst.(value.Value); ok {
				vmap[v] = c.(value.Value)
			}
		}
		switch t := b.Term.(type) {
		case *ir.TermInvoke:
			call := ir.NewCall(t.Invokee, CloneArgs(t.Args)...)
			call.Typ = t.Typ
			call.CallingConv = t.CallingConv
			call.ReturnAttrs = t.ReturnAttrs
			call.FuncAttrs = t.FuncAttrs
			call.OperandBundles = t.OperandBundles
			call.Metadata = t.Metadata
			call.LocalIdent = t.LocalIdent
			nb.Insts = append(nb.Insts, call)
			vmap[t] = call
			nb.NewBr(t.NormalRetTarget.(*ir.Block))
		case *ir.TermRet:
			nb.Term = &ir.TermRet{X: t.X, Metadata: t.Metadata}
		case *ir.TermBr:
			nb.NewBr(t.Target.(*ir.Block))
		case *ir.TermCondBr:
			nb.NewCondBr(t.Cond, t.TargetTrue.(*ir.Block), t.TargetFalse.(*ir.Block))
		case *ir.TermSwitch:
			cases := make([]*ir.Case, len(t.Cases))
			for i, c := range t.Cases {
				cases[i] = ir.NewCase(c.X.(constant.Constant), c.Target.(*ir.Block))
			}
			nb.NewSwitch(t.X, t.TargetDefault.(*ir.Block), cases...)
		default:
			nb.NewUnreachable()
		}
	}
	remap := func(v value.Value) value.Value {
		if n, ok := vmap[v]; ok {
			return n
		}
		return v
	}
	for _, nb := range g.Blocks {
		for _, inst := range nb.Insts {
			RemapOperands(inst, remap)
		}
		RemapOperands(nb.Term, remap)
		// Terminators built with NewBr etc. cache their successors.
		switch t := nb.Term.(type) {
		case *ir.TermBr:
			t.Successors = []*ir.Block{t.Target.(*ir.Block)}
		case *ir.TermCondBr:
			t.Successors = []*ir.Block{t.TargetTrue.(*ir.Block), t.TargetFalse.(*ir.Block)}
		case *ir.TermSwitch:
			t.Successors = nil
			t.Successors = append(t.Successors, t.TargetDefault.(*ir.Block))
			for _, c := range t.Cases {
				t.Successors = append(t.Successors, c.Target.(*ir.Block))
			}
		}
	}
	return g, nil
}

// RemapOperands maps every operand of an instruction or terminator through
// remap, looking inside *ir.Arg wrappers and values wrapped as metadata
// (llvm.dbg.value's first argument), which get a new wrapper when their
// value changes (the old one may be shared with the original).
func RemapOperands(x interface{}, remap func(value.Value) value.Value) {
	u, ok := x.(interface{ Operands() []*value.Value })
	if !ok {
		return
	}
	meta := func(v value.Value) value.Value {
		mv, ok := v.(*metadata.Value)
		if !ok {
			return remap(v)
		}
		inner, ok := mv.Value.(value.Value)
		if !ok {
			return v
		}
		if n := remap(inner); n != inner {
			return &metadata.Value{Value: n}
		}
		return v
	}
	for _, op := range u.Operands() {
		if a, ok := (*op).(*ir.Arg); ok {
			a.Value = meta(a.Value)
		} else {
			*op = meta(*op)
		}
	}
}
