package typeanalysis

import "testing"

// A struct {double a, b; int k} array, LLVM's widened load of b and k as
// one <2 x double> whose second lane an insertelement replaces at once:
// the dropped lane says nothing of k's bytes, so the int stored there
// overwrites no float (it did: "a double at 40" made the store look like
// an integer over half a double, and the link stopped). A lane that is
// read keeps its fact.
const deadLanes = `
%struct.pt = type { double, double, i32 }
define double @f(double %x, double %y) {
entry:
  %q = alloca [2 x %struct.pt], align 16
  %a = getelementptr inbounds [2 x %struct.pt], [2 x %struct.pt]* %q, i64 0, i64 0, i32 1
  store double %x, double* %a, align 8
  %k = getelementptr inbounds [2 x %struct.pt], [2 x %struct.pt]* %q, i64 0, i64 0, i32 2
  store i32 1, i32* %k, align 16
  %wide = bitcast double* %a to <2 x double>*
  %v = load <2 x double>, <2 x double>* %wide, align 8
  %w = insertelement <2 x double> %v, double %y, i64 1
  %s = extractelement <2 x double> %w, i64 0
  ret double %s
}
`

func TestUnreadVectorLanes(t *testing.T) {
	t.Parallel()
	a, m := analyze(t, deadLanes, "f")
	q := named(t, m, "f", "q")
	if c := a.Tree(q).At(0, 8); c != Double {
		t.Errorf("the read lane's double (b): %v, want %v (tree %v)", c, Double, a.Tree(q))
	}
	if c := a.Tree(q).At(0, 16); c == Double {
		t.Errorf("k's bytes: %v, a double only the dropped lane claimed (tree %v)", c, a.Tree(q))
	}
	if lo, hi, found, _ := a.FloatsOverwritten(named(t, m, "f", "k"), 4); found {
		t.Errorf("the int store over k: floats overwritten in [%d, %d), want none", lo, hi)
	}
}
