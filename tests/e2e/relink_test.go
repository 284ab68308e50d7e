package e2e

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// relinkMain differentiates g(x) = f(x)·x + C·x, with f from libf.a:
// g'(x) = f'(x)·x + f(x) + C.
const relinkMain = `#include <stdio.h>
double __enzyme_autodiff(void *, ...);
double f(double x);
static double g(double x) { return f(x) * x + %d.0 * x; }
int main(void) {
	for (double x = 0.5; x < 2.2; x += 0.5)
		printf("%%.17g %%.17g\n", x, __enzyme_autodiff((void *)g, x));
	return 0;
}
`

// relinkLib is f(x) = K·x².
const relinkLib = "double f(double x) { return %d.0 * x * x; }\n"

// TestRelinkNothingChanged: a relink of the same line with nothing changed
// runs the real linker on the recorded line at once (GOZYME_VERBOSE says
// so) and writes the executable the slow path writes, byte for byte;
// after an object, an archive member, a library appearing in an earlier
// -L directory, its removal, or a flag changes, the link takes the slow
// path and the program's derivatives are right. gozyme-ld run by clang
// (not through gozyme-cc) has the same fast path.
func TestRelinkNothingChanged(t *testing.T) {
	setup(t)
	dir := t.TempDir()
	for _, d := range []string{"lib1", "lib2"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	env := toolEnv("GOZYME_CACHE="+filepath.Join(t.TempDir(), "cache"), "GOZYME_VERBOSE=1")
	compile := func(src, obj, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, src), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, dir, env, tool("gozyme-cc"), "-O2", "-c", src, "-o", obj)
	}
	archive := func(lib string, k int) {
		t.Helper()
		compile("f.c", "f.o", fmt.Sprintf(relinkLib, k))
		os.Remove(filepath.Join(dir, lib))
		run(t, dir, env, "ar", "rcs", lib, "f.o")
	}
	line := []string{"-O2", "main.o", "-Llib1", "-Llib2", "-lf", "-o", "app"}
	link := func(line []string, env []string) (stderr string, exe []byte) {
		t.Helper()
		_, stderr, err := runErr(dir, env, tool("gozyme-cc"), line...)
		if err != nil {
			t.Fatalf("link: %v\n%s", err, stderr)
		}
		exe, err = os.ReadFile(filepath.Join(dir, "app"))
		if err != nil {
			t.Fatal(err)
		}
		return stderr, exe
	}
	// check runs the program: g'(x) = 3K·x² + C.
	check := func(k, c int) {
		t.Helper()
		out := run(t, dir, env, filepath.Join(dir, "app"))
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 4 {
			t.Fatalf("program printed %q", out)
		}
		for _, l := range lines {
			f := strings.Fields(l)
			x, err1 := strconv.ParseFloat(f[0], 64)
			d, err2 := strconv.ParseFloat(f[1], 64)
			want := 3*float64(k)*x*x + float64(c)
			if err1 != nil || err2 != nil || math.Abs(d-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("K=%d C=%d: g'(%s) = %s, want %g", k, c, f[0], f[1], want)
			}
		}
	}
	const fast = "relink: nothing changed"
	slow := func(what, stderr, changed string) {
		t.Helper()
		if strings.Contains(stderr, fast) {
			t.Errorf("%s: the link took the fast path:\n%s", what, stderr)
		}
		if changed != "" && !strings.Contains(stderr, "relink: "+changed+" changed") {
			t.Errorf("%s: the link does not say %s changed:\n%s", what, changed, stderr)
		}
	}

	compile("main.c", "main.o", fmt.Sprintf(relinkMain, 1))
	archive("lib2/libf.a", 2)
	first, exe1 := link(line, env)
	slow("first link", first, "")
	check(2, 1)
	again, exe2 := link(line, env)
	if !strings.Contains(again, fast) || strings.Contains(again, "llvm-nm") {
		t.Errorf("relink with nothing changed did not take the fast path:\n%s", again)
	}
	if !bytes.Equal(exe1, exe2) {
		t.Errorf("the fast path's executable differs from the first link's")
	}
	check(2, 1)

	compile("main.c", "main.o", fmt.Sprintf(relinkMain, 5))
	stderr, _ := link(line, env)
	slow("object changed", stderr, "main.o")
	check(2, 5)
	if stderr, _ = link(line, env); !strings.Contains(stderr, fast) {
		t.Errorf("relink after the slow path did not take the fast path:\n%s", stderr)
	}

	archive("lib2/libf.a", 3)
	stderr, _ = link(line, env)
	slow("archive member changed", stderr, "lib2/libf.a")
	check(3, 5)

	archive("lib1/libf.a", 4)
	stderr, _ = link(line, env)
	slow("library in an earlier -L directory", stderr, "lib1/libf.a")
	check(4, 5)

	os.Remove(filepath.Join(dir, "lib1", "libf.a"))
	stderr, _ = link(line, env)
	slow("library removed", stderr, "lib1/libf.a")
	check(3, 5)

	withFlag := append(append([]string(nil), line...), "-O1")
	stderr, _ = link(withFlag, env)
	slow("flag added", stderr, "")
	check(3, 5)
	_, plain := link(withFlag, append(env, "GOZYME_CACHE=off"))
	stderr, exe := link(withFlag, env)
	if !strings.Contains(stderr, fast) {
		t.Errorf("relink with the flag did not take the fast path:\n%s", stderr)
	}
	if !bytes.Equal(plain, exe) {
		t.Errorf("the fast path's executable differs from the link without the cache")
	}
	check(3, 5)

	// gozyme-ld as clang's linker.
	ld := []string{"-O2", "main.o", "-Llib1", "-Llib2", "-lf", "-o", "app", "--ld-path=" + tool("gozyme-ld")}
	run(t, dir, env, "clang-14", ld...)
	if _, stderr, err := runErr(dir, env, "clang-14", ld...); err != nil || !strings.Contains(stderr, fast) {
		t.Errorf("gozyme-ld's relink did not take the fast path (%v):\n%s", err, stderr)
	}
	check(3, 5)
}
