package e2e

import (
	"path/filepath"
	"testing"
)

// TestCxx builds tests/projects/cxx/relu3.cpp (mangled entry point,
// template instantiations, iostreams) with gozyme-c++ at -O0 and -O2 and
// checks the derivatives.
func TestCxx(t *testing.T) {
	setup(t)
	dir := copyProject(t, "cxx")
	env := toolEnv()
	for _, opt := range []string{"-O0", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			obj := filepath.Join(dir, "relu3"+opt+".o")
			exe := filepath.Join(dir, "relu3"+opt)
			run(t, dir, env, tool("gozyme-c++"), opt, "-c", "relu3.cpp", "-o", obj)
			checkFatObject(t, obj)
			run(t, dir, env, tool("gozyme-c++"), opt, obj, "-o", exe)
			checkDerivatives(t, run(t, dir, env, exe), map[string]int{"relu3": 7, "square": 7})
			checkNoBitcode(t, exe)
		})
	}
}
