package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMakefileProject builds tests/projects/makelib (a static library in
// lib/, a program calling __enzyme_autodiff in app/) with
// `CC=gozyme-cc make -j2`, runs it and checks its derivatives; then links
// the same archive into a program with plain gcc.
func TestMakefileProject(t *testing.T) {
	setup(t)
	dir := copyProject(t, "makelib")
	env := toolEnv("CC=gozyme-cc")
	timed(t, "CC=gozyme-cc make -j2", func() { run(t, dir, env, "make", "-j2") })
	for _, obj := range []string{"lib/poly.o", "lib/analytic.o", "app/main.o"} {
		checkFatObject(t, filepath.Join(dir, obj))
	}
	members := strings.Fields(run(t, dir, env, "ar", "t", "lib/libmathx.a"))
	if strings.Join(members, " ") != "poly.o analytic.o" {
		t.Errorf("lib/libmathx.a holds %v, want [poly.o analytic.o]", members)
	}

	app := filepath.Join(dir, "app", "app")
	out := run(t, dir, env, app)
	checkDerivatives(t, out, map[string]int{"relu3": 7, "square": 7, "cubic": 7})
	checkNoBitcode(t, app)

	// The archive of fat objects links with a compiler that knows nothing
	// of gozyme.
	run(t, dir, toolEnv(), "make", "plain", "PLAINCC=gcc")
	plain := filepath.Join(dir, "app", "plain")
	if got := strings.TrimSpace(run(t, dir, env, plain)); got != "plain ok" {
		t.Errorf("%s printed %q, want \"plain ok\"", plain, got)
	}
	checkNoBitcode(t, plain)
}
