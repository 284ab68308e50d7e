package ad

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Error is a construct gozyme cannot differentiate. Its message reads like a
// compiler diagnostic, in the source's terms:
//
//	file.c:7:10: cannot differentiate 'f': no derivative for the call to 'mystery'; ...
//	file.c:12:14: note: in the derivative for the __enzyme_autodiff call in 'main'
//
// the note naming the entry-point call the derivative is for (its line
// from debug info when built with -g). The LLVM IR of the construct is
// shown only when ShowIR is set (GOZYME_VERBOSE=1).
type Error struct {
	Loc    string // source location from !dbg, or ""
	Func   string // the function being differentiated
	Msg    string
	Callee string // the function without a body or rule that stopped AD, if that was it
	// Call names the entry-point call when the error is about the call
	// itself ("the __enzyme_autodiff call in 'main'"), instead of Func.
	Call string
	// Root and RootLoc: the entry-point call whose derivative reached
	// the construct, and where it is.
	Root, RootLoc string
	IR            string // the construct in LLVM IR
	ShowIR        bool
	Kernel        string // on a GPU, the kernel (or device function) whose Enzyme call asked for it
	// Caller is, where Loc lies in code inlined into Func, the line in
	// Func it was inlined at; GPU messages lead with it (device code is
	// mostly inlined: the line in a header says little).
	Caller string
	// runtimeActivity marks an error Options.RuntimeActivity avoids.
	runtimeActivity bool
}

// NeedsRuntimeActivity reports whether err is an Error that
// differentiating again with Options.RuntimeActivity avoids.
func NeedsRuntimeActivity(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.runtimeActivity
}

func (e *Error) Error() string {
	prefix := ""
	if e.Loc != "" {
		prefix = e.Loc + ": "
	}
	what := "'" + e.Func + "'"
	msg := e.Msg
	if e.Kernel != "" {
		if e.Caller != "" {
			prefix = e.Caller + ": "
			msg += " (in code inlined from " + e.Loc + ")"
		}
		if e.Kernel != e.Func {
			what += " (called from kernel '" + e.Kernel + "')"
		}
	}
	if e.Call != "" {
		what = e.Call
	}
	s := fmt.Sprintf("%scannot differentiate %s: %s", prefix, what, msg)
	if e.ShowIR && e.IR != "" {
		s += "\n  LLVM IR: " + e.IR
	}
	if e.Root != "" {
		loc := e.RootLoc
		if loc == "" {
			loc = "note"
		} else {
			loc += ": note"
		}
		s += "\n" + loc + ": " + e.Root
	}
	return s
}

// errorAt builds an Error located at inst (or at f when inst has no location).
func errorAt(f *ir.Func, inst interface{}, format string, args ...interface{}) *Error {
	loc, caller := "", ""
	if inst != nil {
		loc, caller = irutil.DebugLoc(inst), irutil.CallerLoc(inst)
	}
	if loc == "" && f != nil {
		loc = irutil.FuncLoc(f)
	}
	name := ""
	if f != nil {
		name = f.Name()
	}
	return &Error{Loc: loc, Caller: caller, Func: name, Msg: fmt.Sprintf(format, args...), IR: irText(inst)}
}

// irText is inst in LLVM IR, without its debug location ("" for a nil
// inst).
func irText(inst interface{}) string {
	s, ok := inst.(interface{ LLString() string })
	if !ok || inst == nil {
		return ""
	}
	str := s.LLString()
	if i := strings.Index(str, ", !dbg"); i >= 0 {
		str = str[:i]
	}
	if len(str) > 200 {
		str = str[:197] + "..."
	}
	return str
}

// describe names an instruction in the source's terms: "the call to
// 'foo'", "a store of a double", ... (its line is the error's location;
// the IR is shown with GOZYME_VERBOSE=1).
func describe(inst interface{}) string {
	switch x := inst.(type) {
	case *ir.InstCall:
		if f, ok := irutil.StripCasts(x.Callee).(*ir.Func); ok {
			switch {
			case irfacts.IsMemTransfer(x):
				return "a memory copy (memcpy)"
			case irfacts.IsMemSet(x):
				return "a memory fill (memset)"
			}
			return "the call to '" + f.Name() + "'"
		}
		return "a call through a function pointer"
	case *ir.TermInvoke:
		if f, ok := irutil.StripCasts(x.Invokee).(*ir.Func); ok {
			return "the call to '" + f.Name() + "'"
		}
		return "a call through a function pointer"
	case *ir.InstStore:
		return "a store of " + typeWords(x.Src.Type())
	case *ir.InstLoad:
		return "a load of " + typeWords(x.ElemType)
	case *ir.InstAlloca:
		return "a local variable of " + typeWords(x.ElemType)
	case *ir.InstGetElementPtr:
		return "an address computation (array index or field)"
	case *ir.InstPhi:
		return "a value joined from several branches"
	case *ir.InstSelect:
		return "a choice between two values (?:)"
	case *ir.InstAtomicRMW, *ir.InstCmpXchg:
		return "an atomic operation"
	case *ir.TermRet:
		return "the return"
	case ir.Terminator:
		return "a jump of a kind gozyme does not follow (" + opcode(inst) + ")"
	case ir.Instruction:
		return "an operation (" + opcode(inst) + ") on " + typeWords(instType(x))
	case value.Value:
		return describeValue(x)
	}
	return fmt.Sprintf("%T", inst)
}

// describeValue names a value in the source's terms: a parameter by
// position, a global by name, an instruction as describe does.
func describeValue(v value.Value) string {
	switch x := irfacts.Unwrap(v).(type) {
	case *ir.Param:
		return "a parameter (" + typeWords(x.Typ) + ")"
	case *ir.Global:
		return "global '" + x.Name() + "'"
	case *ir.Func:
		return "function '" + x.Name() + "'"
	case constant.Constant:
		return "a constant (" + typeWords(x.Type()) + ")"
	case ir.Instruction:
		return describe(x)
	}
	return v.Ident()
}

// typeWords names an LLVM type as C does, roughly.
func typeWords(t types.Type) string {
	switch x := t.(type) {
	case *types.FloatType:
		switch x.Kind {
		case types.FloatKindFloat:
			return "a float"
		case types.FloatKindDouble:
			return "a double"
		case types.FloatKindX86_FP80:
			return "a long double"
		}
		return "a floating-point value"
	case *types.PointerType:
		return "a pointer"
	case *types.IntType:
		return "an integer"
	case *types.VectorType:
		return "a vector"
	case *types.StructType:
		return "a struct"
	case *types.ArrayType:
		return "an array"
	}
	return "a value"
}

// opcode is an instruction's LLVM opcode (its IR text's first word after
// the result).
func opcode(inst interface{}) string {
	s := irText(inst)
	if i := strings.Index(s, " = "); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexByte(s, ' '); i >= 0 {
		s = s[:i]
	}
	return s
}

func instType(inst ir.Instruction) types.Type {
	if v, ok := inst.(value.Value); ok {
		return v.Type()
	}
	return types.Void
}

// Messages shared by forward and reverse mode.
const (
	indirectCallMsg = "a call through a function pointer carries derivatives: gozyme differentiates calls of known functions only (call the function directly; a function pointer passed as enzyme_const to the function being differentiated is specialized)"
	noRuleMsg       = "no derivative for the call to '%s': it has no body in this link and no derivative rule; give it a custom derivative (enzyme(\"gradient\", ...) or __enzyme_register_gradient), or list it in __enzyme_inactivefn if it carries none"
)

// paramIndex is p's position in f, from 1 (0 when p is not f's).
func paramIndex(f *ir.Func, p *ir.Param) int {
	for i, q := range f.Params {
		if q == p {
			return i + 1
		}
	}
	return 0
}

// indirectCallError explains a call carrying derivatives whose callee is no
// function gozyme can see: inline assembly, or a pointer it cannot resolve.
func indirectCallError(f *ir.Func, call *ir.InstCall) *Error {
	if _, ok := call.Callee.(*ir.InlineAsm); ok {
		return errorAt(f, call, "inline assembly %s carries derivatives: gozyme cannot differentiate assembly (give '%s' a custom derivative)", describe(call), f.Name())
	}
	return errorAt(f, call, "%s", indirectCallMsg)
}
