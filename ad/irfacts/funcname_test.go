package irfacts

import (
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// funcName is llir's Name for every kind of name: numeric ones (quoted),
// signed numbers, unnamed functions, and the usual names.
func TestFuncNameIsLLIRName(t *testing.T) {
	for _, name := range []string{"malloc", "_Z3fooi", ".str", "$x", "__real_malloc", "42", "-1", "+3", "1abc", "-x", "é", ""} {
		f := ir.NewFunc(name, types.Void)
		if name == "" {
			f.SetID(7)
		}
		if got, want := funcName(f), f.Name(); got != want {
			t.Errorf("funcName of %q = %q, llir's Name %q", name, got, want)
		}
	}
	real := ir.NewFunc("__real_malloc", types.I8Ptr)
	if got := LibName(real); got != "malloc" {
		t.Errorf("LibName(__real_malloc) = %q, want malloc", got)
	}
}
