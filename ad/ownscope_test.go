package ad

import "testing"

// TestOwnShadowScope: the gradients of testdata/own_shadow_scope.c against
// central differences at every level, and one with the caller's shadow
// aliasing its primal; leak-checked.
func TestOwnShadowScope(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "own_shadow_scope.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
		t.Run("linked-O"+o, func(t *testing.T) { run(t, buildCLinked(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestOwnShadowScopePlanned: at -O2, the shadow accesses of local's
// malloc'd buffer and of stacked's array get the own-shadow scope,
// combined and split; escaped's buffer, whose address the primal lets out,
// gets none.
func TestOwnShadowScopePlanned(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "own_shadow_scope.c")
	dir := t.TempDir()
	m := preAD(t, dir, compileBitcode(t, dir, "clang", "prog.c", src, "2", "-Xclang", "-disable-llvm-passes"), "2", linkedLoops...)
	for _, tc := range []struct {
		name string
		own  bool
	}{{"local", true}, {"stacked", true}, {"escaped", false}} {
		for _, split := range []bool{false, true} {
			d, r := reverseOf(t, m, tc.name, split, "own_"+tc.name)
			if got := len(r.ownAccess) > 0; got != tc.own {
				t.Errorf("%s (split %v): %d accesses in the own-shadow scope, want some %v", tc.name, split, len(r.ownAccess), tc.own)
			}
			d.dropFunc(r.g)
		}
	}
}
