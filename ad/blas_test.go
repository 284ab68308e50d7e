package ad

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/toolchains"
)

// BLAS calls are differentiated by rule (blasrules.go), whether the
// routines come as bitcode beside the program (a plain-C reference BLAS,
// whose bodies the rules must not look at) or from an object compiled
// without gozyme (no bitcode at all: as a real BLAS library links).

func TestBlasRulesWithBodies(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "blas_decls.h") + testdataC(t, "blas_ref.c") + testdataC(t, "blas_rules.c")
	for _, o := range optLevels {
		o := o
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			checkBlasRun(t, run(t, buildC(t, src, o)))
		})
	}
}

func TestBlasRulesLinkedObject(t *testing.T) {
	t.Parallel()
	obj := blasReferenceObject(t)
	src := testdataC(t, "blas_decls.h") + testdataC(t, "blas_rules.c")
	for _, o := range optLevels {
		o := o
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bc := compileBitcode(t, dir, "clang", "prog.c", src, o)
			exe, err := finishBuild(t, dir, "clang", bc, o, obj, "-lm")
			if err != nil {
				t.Fatal(err)
			}
			checkBlasRun(t, run(t, exe))
		})
	}
}

// blasReferenceObject compiles the reference BLAS with plain clang-14.
func blasReferenceObject(t *testing.T) string {
	t.Helper()
	if _, err := toolchains.Tool("clang"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	c := filepath.Join(dir, "ref.c")
	if err := os.WriteFile(c, []byte(testdataC(t, "blas_decls.h")+testdataC(t, "blas_ref.c")), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, "ref.o")
	if _, err := toolchains.Run(context.Background(), "clang", "-c", "-O2", c, "-o", obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func checkBlasRun(t *testing.T, out string) {
	t.Helper()
	if !strings.Contains(out, " 0 failures") {
		t.Fatalf("%s", out)
	}
	t.Log(strings.TrimSpace(out))
}
