package irutil

import (
	"strings"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
)

// Annotation is one entry of llvm.global.annotations, which clang's
// annotate attribute makes on the definitions of functions and globals:
// the annotated value (casts stripped), the annotation's text, where it was
// written, and its further arguments (a pointer to a constant struct, or
// null).
type Annotation struct {
	Value constant.Constant
	Text  string
	File  string
	Line  int64
	Args  constant.Constant
}

// Annotations reads m's llvm.global.annotations (none when it has no such
// global).
func Annotations(m *ir.Module) []Annotation {
	var out []Annotation
	for _, g := range m.Globals {
		if g.Name() != "llvm.global.annotations" {
			continue
		}
		arr, ok := g.Init.(*constant.Array)
		if !ok {
			continue
		}
		for _, e := range arr.Elems {
			st, ok := e.(*constant.Struct)
			if !ok || len(st.Fields) < 4 {
				continue
			}
			a := Annotation{Text: CString(st.Fields[1]), File: CString(st.Fields[2]), Line: IntValue(st.Fields[3])}
			a.Value, _ = StripCasts(st.Fields[0]).(constant.Constant)
			if len(st.Fields) > 4 {
				a.Args = st.Fields[4]
			}
			out = append(out, a)
		}
	}
	return out
}

// CString returns the text of a pointer to a constant C string (a global
// holding a character array, possibly through a GEP or a cast); "" for
// anything else.
func CString(c constant.Constant) string {
	var g *ir.Global
	switch x := StripCasts(c).(type) {
	case *constant.ExprGetElementPtr:
		g, _ = StripCasts(x.Src).(*ir.Global)
	case *ir.Global:
		g = x
	}
	if g == nil {
		return ""
	}
	if ca, ok := g.Init.(*constant.CharArray); ok {
		return strings.TrimRight(string(ca.X), "\x00")
	}
	return ""
}

// IntValue is the value of an integer constant (0 for anything else).
func IntValue(c constant.Constant) int64 {
	if i, ok := c.(*constant.Int); ok {
		return i.X.Int64()
	}
	return 0
}
