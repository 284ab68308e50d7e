package e2e

import (
	"path/filepath"
	"testing"
)

// TestOptLevels compiles and links tests/projects/optlevels/deriv.c with
// gozyme-cc at -O0..-O3 (compile and link as separate steps) and checks the
// derivatives of relu3 and square.
func TestOptLevels(t *testing.T) {
	setup(t)
	dir := copyProject(t, "optlevels")
	env := toolEnv()
	for _, opt := range []string{"-O0", "-O1", "-O2", "-O3"} {
		t.Run(opt, func(t *testing.T) {
			obj := filepath.Join(dir, "deriv"+opt+".o")
			exe := filepath.Join(dir, "deriv"+opt)
			run(t, dir, env, tool("gozyme-cc"), opt, "-c", "deriv.c", "-o", obj)
			checkFatObject(t, obj)
			run(t, dir, env, tool("gozyme-cc"), opt, obj, "-o", exe, "-lm")
			checkDerivatives(t, run(t, dir, env, exe), map[string]int{"relu3": 7, "square": 7})
		})
	}
}

// TestClangLdPath links gozyme-cc objects with plain clang-14 whose linker
// is gozyme-ld (`clang-14 --ld-path=gozyme-ld`), the route for builds that
// cannot change their compiler.
func TestClangLdPath(t *testing.T) {
	setup(t)
	dir := copyProject(t, "optlevels")
	env := toolEnv()
	obj := filepath.Join(dir, "deriv.o")
	exe := filepath.Join(dir, "deriv")
	run(t, dir, env, tool("gozyme-cc"), "-O2", "-c", "deriv.c", "-o", obj)
	run(t, dir, env, "clang-14", "-O2", "--ld-path="+tool("gozyme-ld"), obj, "-o", exe, "-lm")
	checkDerivatives(t, run(t, dir, env, exe), map[string]int{"relu3": 7, "square": 7})
}
