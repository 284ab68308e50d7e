package ad

import (
	"reflect"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// mathCall is a call of a math function in a primal block, with what
// mathSibling compares read once: its base name and unwrapped operands.
type mathCall struct {
	call *ir.InstCall
	args []value.Value
}

// mathKey buckets a block's math calls: by base name and first unwrapped
// operand, where that operand is a pointer (every llir value is; a value
// of another kind goes to the bucket of a nil operand, compared in full
// there like the others).
type mathKey struct {
	base string
	arg0 value.Value
}

// blockMathCalls is the index of one block's math calls; each bucket
// keeps the block's order.
type blockMathCalls map[mathKey][]mathCall

// mathSibling returns a call of block at (the primal block of call) to
// the math function name (a base name: "cos" for cos, cosf, llvm.cos.f64)
// on exactly call's operands, of call's type, or nil. The reverse of
// sin(x) needs cos(x): where the primal computed it in the same block
// (rotations take both), the reverse reads that value rather than calling
// cos again; the block runs both calls or neither, and a math function of
// the same operands gives the same value. Only functions without a body
// of their own (libm's, intrinsics, those declared to behave like one)
// count: a defined function named cos is whatever its body says. Where
// several match, the first in the block is taken. The block's calls are
// indexed once (a function of N statements has N of them in one block).
func (r *reverseGen) mathSibling(at *ir.Block, call *ir.InstCall, name string) *ir.InstCall {
	if r.mathCalls == nil {
		r.mathCalls = map[*ir.Block]blockMathCalls{}
	}
	index, ok := r.mathCalls[at]
	if !ok {
		index = indexMathCalls(at)
		r.mathCalls[at] = index
	}
	var arg0 value.Value
	if len(call.Args) > 0 {
		arg0 = irfacts.Unwrap(call.Args[0])
	}
	for _, c := range index[mathKey{name, keyOperand(arg0)}] {
		if c.call == call || len(c.args) != len(call.Args) || !types.Equal(c.call.Typ, call.Typ) {
			continue
		}
		same := true
		for i, a := range c.args {
			if a != irfacts.Unwrap(call.Args[i]) {
				same = false
			}
		}
		if same {
			return c.call
		}
	}
	return nil
}

// indexMathCalls buckets the calls of block at to functions without a
// body of their own (or declared to behave like one) by base name (as
// rules.Lookup names it) and first operand.
func indexMathCalls(at *ir.Block) blockMathCalls {
	index := blockMathCalls{}
	for _, inst := range at.Insts {
		c, isCall := inst.(*ir.InstCall)
		if !isCall {
			continue
		}
		f, isFunc := c.Callee.(*ir.Func)
		if !isFunc || !(len(f.Blocks) == 0 || irfacts.IsFunctionLike(f)) {
			continue
		}
		_, base := rules.Lookup(mathName(f), c.Typ)
		mc := mathCall{call: c, args: make([]value.Value, len(c.Args))}
		for i, a := range c.Args {
			mc.args[i] = irfacts.Unwrap(a)
		}
		var arg0 value.Value
		if len(mc.args) > 0 {
			arg0 = mc.args[0]
		}
		k := mathKey{base, keyOperand(arg0)}
		index[k] = append(index[k], mc)
	}
	return index
}

// keyOperand is v where it can key a map (a pointer), else nil.
func keyOperand(v value.Value) value.Value {
	if v == nil || reflect.TypeOf(v).Kind() != reflect.Pointer {
		return nil
	}
	return v
}

// mathName is the math function f is (its enzyme_math attribute, else its
// name), as mathRuleOf reads it.
func mathName(f *ir.Func) string {
	if like := irfacts.FuncAttr(f, attrMath); like != "" {
		return like
	}
	return f.Name()
}
