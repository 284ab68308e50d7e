package gpu

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompileLines drives gozyme-c++ the ways build systems do with CUDA
// sources: several sources in one -c line, -x cuda on another extension
// with a dependency file, and compile-and-link (against a stand-in
// libcudart: nothing runs).
func TestCompileLines(t *testing.T) {
	lib := libdevice(t)
	dir := t.TempDir()
	kernels := filepath.Join(repoRoot, "tests", "gpu", "kernels")
	for _, f := range []string{"gpucheck.h", "private.cu", "shared.cu"} {
		data, err := os.ReadFile(filepath.Join(kernels, f))
		if err != nil {
			t.Fatal(err)
		}
		name := f
		if f == "shared.cu" {
			name = "shared.cpp" // compiled with -x cuda below
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cxx := gozymeCXX(t)
	env := append(os.Environ(), "GOZYME_LIBDEVICE="+lib)
	do := func(args ...string) {
		t.Helper()
		cmd := exec.Command(cxx, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gozyme-c++ %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	do("-O2", "-c", "private.cu", "-x", "cuda", "shared.cpp", "-MD")
	for _, obj := range []string{"private.o", "shared.o"} {
		f, err := elf.Open(filepath.Join(dir, obj))
		if err != nil {
			t.Fatal(err)
		}
		if f.Section(".nv_fatbin") == nil || f.Section(".llvmbc") == nil {
			t.Errorf("%s: want the embedded PTX (.nv_fatbin) and the host bitcode (.llvmbc)", obj)
		}
		f.Close()
	}
	deps, err := os.ReadFile(filepath.Join(dir, "shared.d"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(strings.ReplaceAll(string(deps), "\\\n", " "))[1:] {
		if _, err := os.Stat(dep); err != nil && strings.Contains(dep, "gozyme") {
			t.Errorf("the dependency file names %s, which is gone: %v", dep, err)
		}
	}
	stub := filepath.Join(dir, "stub")
	os.MkdirAll(stub, 0o755)
	if out, err := exec.Command("clang-14", "-shared", "-fPIC", "-o", filepath.Join(stub, "libcudart.so"),
		filepath.Join(repoRoot, "tests", "gpu", "emu", "cudart_emu.c"), "-lpthread", "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("stand-in libcudart: %v\n%s", err, out)
	}
	do("-O2", "private.cu", "-o", "private", "-L"+stub, "-lcudart", "-lm")
	if _, err := os.Stat(filepath.Join(dir, "private")); err != nil {
		t.Fatal(err)
	}
}
