package irutil

import "testing"

func TestBookkeepingIntrinsic(t *testing.T) {
	for name, want := range map[string]Bookkeeping{
		"llvm.dbg.value":                       DebugInfo,
		"llvm.dbg.declare":                     DebugInfo,
		"llvm.assume":                          Assumption,
		"llvm.experimental.noalias.scope.decl": Assumption,
		"llvm.lifetime.start.p0i8":             Lifetime,
		"llvm.lifetime.end.p0i8":               Lifetime,
		"llvm.invariant.start.p0i8":            Invariant,
		"llvm.invariant.end.p0i8":              Invariant,
		"llvm.memcpy.p0i8.p0i8.i64":            NotBookkeeping,
		"llvm.vector.reduce.fadd.v4f64":        NotBookkeeping,
		"llvm.dbg":                             NotBookkeeping,
		"sin":                                  NotBookkeeping,
		"my.llvm.dbg.value":                    NotBookkeeping,
	} {
		if got := BookkeepingIntrinsic(name); got != want {
			t.Errorf("BookkeepingIntrinsic(%q) = %d, want %d", name, got, want)
		}
	}
}
