package lto

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/toolchains"
)

// hugeModule is a module whose @big, marked as markHugeFunctions marks,
// is one block of 3 n instructions with calls, and values used 1500
// statements after their definition; main prints its result exactly.
func hugeModule(n int) string {
	var b strings.Builder
	b.WriteString("@fmt = private constant [4 x i8] c\"%a\\0A\\00\"\n\ndeclare double @sin(double)\ndeclare i32 @printf(i8*, ...)\n\n")
	b.WriteString("define double @big(double* %x) #0 {\nentry:\n  %v0 = load double, double* %x, align 8\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "  %%s%d = call double @sin(double %%v%d)\n", i, i-1)
		if i > 1500 {
			fmt.Fprintf(&b, "  %%f%d = fmul double %%v%d, 2.500000e-01\n", i, i-1500)
		} else {
			fmt.Fprintf(&b, "  %%f%d = fmul double %%v%d, 2.500000e-01\n", i, i-1)
		}
		fmt.Fprintf(&b, "  %%v%d = fadd double %%s%d, %%f%d\n", i, i, i)
	}
	fmt.Fprintf(&b, "  ret double %%v%d\n}\n\n", n)
	b.WriteString(`define i32 @main() {
  %p = alloca double, align 8
  store volatile double 5.000000e-01, double* %p, align 8
  %r = call double @big(double* %p)
  %c = call i32 (i8*, ...) @printf(i8* getelementptr ([4 x i8], [4 x i8]* @fmt, i64 0, i64 0), double %r)
  ret i32 0
}

attributes #0 = { noinline nounwind noimplicitfloat "gozyme-huge" }
`)
	return b.String()
}

// TestCompileHuge compiles a huge function the way compileHuge does
// (values spilled, blocks cut, the fast register allocator, no machine
// CSE) and as one
// clang -O2 step: both programs print the same bits.
func TestCompileHuge(t *testing.T) {
	clang := needTool(t, "clang-14")
	saved := fastRegallocSize
	fastRegallocSize = 1000
	defer func() { fastRegallocSize = saved }()
	dir := t.TempDir()
	ll := filepath.Join(dir, "huge.ll")
	if err := os.WriteFile(ll, []byte(hugeModule(4000)), 0o644); err != nil {
		t.Fatal(err)
	}
	output := func(obj string) string {
		t.Helper()
		exe := strings.TrimSuffix(obj, ".o")
		run(t, dir, clang, obj, "-lm", "-o", exe)
		return string(run(t, dir, exe))
	}
	run(t, dir, clang, "-c", "-O2", ll, "-o", filepath.Join(dir, "plain.o"), "-Wno-override-module")
	want := output(filepath.Join(dir, "plain.o"))
	verbose := toolchains.WithConfig(context.Background(), toolchains.Config{Verbose: true})
	stderr := captureStderr(t, func() {
		args := []string{"-c", "-O2", ll, "-o", filepath.Join(dir, "huge.o"), "-Wno-override-module"}
		if err := compileHuge(verbose, dir, args, 2, "huge.ll"); err != nil {
			t.Fatal(err)
		}
	})
	for _, flag := range []string{"-regalloc=fast", "-disable-machine-cse", "-disable-cgp-branch-opts", "-disable-branch-fold"} {
		if !strings.Contains(stderr, flag) {
			t.Errorf("code generation without %s:\n%s", flag, stderr)
		}
	}
	if strings.Contains(stderr, "compiled as it was") {
		t.Errorf("the edited module did not compile:\n%s", stderr)
	}
	edited, err := os.ReadFile(filepath.Join(dir, "codegen.ll"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(edited), "gozyme.spill.") || !strings.Contains(string(edited), "gozyme.split.") {
		t.Errorf("codegen.ll has no spills or no cuts")
	}
	t.Logf("prints %s", strings.TrimSpace(want))
	if got := output(filepath.Join(dir, "huge.o")); got != want {
		t.Errorf("compiled as huge, the program prints %q; compiled plainly %q", got, want)
	}
}

// captureStderr returns what f writes to os.Stderr.
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		data, _ := io.ReadAll(r)
		done <- string(data)
	}()
	defer func() { os.Stderr = saved }()
	f()
	w.Close()
	os.Stderr = saved
	return <-done
}
