package ad

import (
	"fmt"
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
)

// Error is a construct gozyme cannot differentiate. Its message reads like a
// compiler diagnostic: "file:line:col: cannot differentiate 'f': reason".
type Error struct {
	Loc    string // source location from !dbg, or ""
	Func   string // the function being differentiated
	Msg    string
	Callee string // the function without a body or rule that stopped AD, if that was it
}

func (e *Error) Error() string {
	prefix := ""
	if e.Loc != "" {
		prefix = e.Loc + ": "
	}
	return fmt.Sprintf("%scannot differentiate '%s': %s", prefix, e.Func, e.Msg)
}

// errorAt builds an Error located at inst (or at f when inst has no location).
func errorAt(f *ir.Func, inst interface{}, format string, args ...interface{}) *Error {
	loc := ""
	if inst != nil {
		loc = irutil.DebugLoc(inst)
	}
	if loc == "" && f != nil {
		loc = irutil.FuncLoc(f)
	}
	name := ""
	if f != nil {
		name = f.Name()
	}
	return &Error{Loc: loc, Func: name, Msg: fmt.Sprintf(format, args...)}
}

// describe renders an instruction for a message, e.g. "%5 = call double @foo(...)".
func describe(inst interface{}) string {
	if s, ok := inst.(interface{ LLString() string }); ok {
		str := s.LLString()
		if i := strings.Index(str, ", !dbg"); i >= 0 {
			str = str[:i]
		}
		if len(str) > 160 {
			str = str[:157] + "..."
		}
		return "'" + str + "'"
	}
	return fmt.Sprintf("%T", inst)
}

// indirectCallError explains a call carrying derivatives whose callee is no
// function gozyme can see: inline assembly, or a pointer it cannot resolve.
func indirectCallError(f *ir.Func, call *ir.InstCall) *Error {
	if _, ok := call.Callee.(*ir.InlineAsm); ok {
		return errorAt(f, call, "inline assembly %s carries derivatives: gozyme cannot differentiate assembly (give '%s' a custom derivative)", describe(call), f.Name())
	}
	return errorAt(f, call, "indirect call %s carries derivatives", describe(call))
}
