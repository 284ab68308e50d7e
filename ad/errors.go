package ad

import (
	"errors"
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
	Kernel string // on a GPU, the kernel (or device function) whose Enzyme call asked for it
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
	if e.Kernel != "" {
		msg := e.Msg
		if e.Caller != "" {
			prefix = e.Caller + ": "
			msg += " (in code inlined from " + e.Loc + ")"
		}
		if e.Kernel == e.Func {
			return fmt.Sprintf("%scannot differentiate '%s': %s", prefix, e.Func, msg)
		}
		return fmt.Sprintf("%scannot differentiate '%s' (called from kernel '%s'): %s", prefix, e.Func, e.Kernel, msg)
	}
	return fmt.Sprintf("%scannot differentiate '%s': %s", prefix, e.Func, e.Msg)
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
	return &Error{Loc: loc, Caller: caller, Func: name, Msg: fmt.Sprintf(format, args...)}
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
