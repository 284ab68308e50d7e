package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenMP builds the OpenMP programs of ad/testdata (each checks its
// gradient in reverse, split and forward mode against central
// differences) with gozyme-cc -fopenmp at -O0..-O3, compiling and linking
// as separate steps (the fat objects carry the outlined regions; the link
// adds libomp), and runs them on teams of 2 and 8 threads.
func TestOpenMP(t *testing.T) {
	setup(t)
	if _, err := os.Stat("/usr/lib/llvm-14/lib/libomp.so"); err != nil {
		t.Skip("libomp-14-dev is not installed (make deps)")
	}
	testdata := filepath.Join(repoRoot, "ad", "testdata")
	progs, err := filepath.Glob(filepath.Join(testdata, "omp_*.c"))
	if err != nil || len(progs) == 0 {
		t.Fatalf("no OpenMP programs in %s: %v", testdata, err)
	}
	dir := t.TempDir()
	env := toolEnv()
	for _, opt := range []string{"-O0", "-O1", "-O2", "-O3"} {
		t.Run(opt, func(t *testing.T) {
			t.Parallel() // each level's files are its own (name ends with opt)
			for _, src := range progs {
				name := strings.TrimSuffix(filepath.Base(src), ".c") + opt
				obj, exe := filepath.Join(dir, name+".o"), filepath.Join(dir, name)
				run(t, dir, env, tool("gozyme-cc"), opt, "-fopenmp", "-I", testdata, "-c", src, "-o", obj)
				checkFatObject(t, obj)
				run(t, dir, env, tool("gozyme-cc"), opt, "-fopenmp", obj, "-o", exe, "-lm")
				for _, threads := range []string{"2", "8"} {
					out := run(t, dir, toolEnv("OMP_NUM_THREADS="+threads), exe)
					if strings.Contains(out, "FAIL") {
						t.Errorf("%s with %s threads:\n%s", name, threads, out)
					}
				}
			}
		})
	}
}

// TestFortranOpenMP builds tests/projects/openmp-fortran: Fortran with
// !$omp parallel do (an automatic array; a reduction) compiled with
// gozyme-fc -fopenmp, differentiated from a C main linked with gozyme-cc
// -fopenmp, at -O0..-O3, run on 2 and 8 threads.
func TestFortranOpenMP(t *testing.T) {
	setup(t)
	needFlang(t)
	if _, err := os.Stat("/usr/lib/llvm-14/lib/libomp.so"); err != nil {
		t.Skip("libomp-14-dev is not installed (make deps)")
	}
	dir := copyProject(t, "openmp-fortran")
	env := toolEnv()
	for _, opt := range []string{"-O0", "-O1", "-O2", "-O3"} {
		obj, exe := "kernels"+opt+".o", filepath.Join(dir, "main"+opt)
		run(t, dir, env, tool("gozyme-fc"), opt, "-fopenmp", "-c", "kernels.f90", "-o", obj)
		checkFatObject(t, filepath.Join(dir, obj))
		run(t, dir, env, tool("gozyme-cc"), opt, "-fopenmp", "main.c", obj, "-o", exe, "-lm")
		for _, threads := range []string{"2", "8"} {
			out := run(t, dir, toolEnv("OMP_NUM_THREADS="+threads), exe)
			if strings.Contains(out, "FAIL") || strings.Count(out, "ok ") != 2 {
				t.Errorf("%s, %s threads:\n%s", opt, threads, out)
			}
		}
	}
}
