package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// mathSibling returns a call of block at (the primal block of call) to
// the math function name (a base name: "cos" for cos, cosf, llvm.cos.f64)
// on exactly call's operands, of call's type, or nil. The reverse of
// sin(x) needs cos(x): where the primal computed it in the same block
// (rotations take both), the reverse reads that value rather than calling
// cos again; the block runs both calls or neither, and a math function of
// the same operands gives the same value. Only functions without a body
// of their own (libm's, intrinsics, those declared to behave like one)
// count: a defined function named cos is whatever its body says.
func (r *reverseGen) mathSibling(at *ir.Block, call *ir.InstCall, name string) *ir.InstCall {
	if r.mathCalls == nil {
		r.mathCalls = map[*ir.Block][]*ir.InstCall{}
	}
	calls, ok := r.mathCalls[at]
	if !ok {
		for _, inst := range at.Insts {
			if c, isCall := inst.(*ir.InstCall); isCall {
				if f, isFunc := c.Callee.(*ir.Func); isFunc && (len(f.Blocks) == 0 || irfacts.IsFunctionLike(f)) {
					calls = append(calls, c)
				}
			}
		}
		r.mathCalls[at] = calls
	}
	for _, c := range calls {
		if c == call || len(c.Args) != len(call.Args) || !types.Equal(c.Typ, call.Typ) {
			continue
		}
		if _, base := rules.Lookup(mathName(c.Callee.(*ir.Func)), c.Typ); base != name {
			continue
		}
		same := true
		for i, a := range c.Args {
			if irfacts.Unwrap(a) != irfacts.Unwrap(call.Args[i]) {
				same = false
			}
		}
		if same {
			return c
		}
	}
	return nil
}

// mathName is the math function f is (its enzyme_math attribute, else its
// name), as mathRuleOf reads it.
func mathName(f *ir.Func) string {
	if like := irfacts.FuncAttr(f, attrMath); like != "" {
		return like
	}
	return f.Name()
}
