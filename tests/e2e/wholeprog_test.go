package e2e

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWholeProgram builds tests/projects/wholeprog with CC=gozyme-cc make:
// the differentiated loss spans three directories and a static library
// (same-named static functions in two TUs, a global defined in the library,
// an unused archive member with a conflicting definition), the seed's norm
// example has mag in another TU, roots sit in an object and in an archive
// member (independent groups), and a C++ template is instantiated in two
// TUs; app/bconly reaches a function only through a call its object's
// native code dropped (compiled -O2, linked -O0). Every derivative is
// checked by the program itself (finite differences or analytic values)
// and its output is checked here.
func TestWholeProgram(t *testing.T) {
	setup(t)
	dir := copyProject(t, "wholeprog")
	env := toolEnv("CC=gozyme-cc", "CXX=gozyme-c++")
	timed(t, "CC=gozyme-cc make -j2", func() { run(t, dir, env, "make", "-j2") })

	for _, prog := range []struct {
		path, prefix string
		lines        int
	}{{"app/app", "loss ", 6}, {"app/app", "norm ", 6}, {"app/app", "loss_dw0 ", 1}, {"app/app", "lib_grad ", 1},
		{"app/multi", "multi ", 6}, {"app/bconly", "bconly ", 6}, {"cxx/cxx", "cxx ", 6}} {
		out := run(t, dir, env, filepath.Join(dir, prog.path))
		if !strings.Contains(out, "failures 0\n") {
			t.Errorf("%s:\n%s", prog.path, out)
		}
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, prog.prefix) {
				n++
			}
		}
		if n != prog.lines {
			t.Errorf("%s printed %d %q lines, want %d:\n%s", prog.path, n, prog.prefix, prog.lines, out)
		}
	}

	// Determinism: the same inputs link to the same bytes.
	first, err := os.ReadFile(filepath.Join(dir, "app", "app"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "app", "app"))
	run(t, dir, env, "make", "app/app")
	second, err := os.ReadFile(filepath.Join(dir, "app", "app"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Errorf("two links of app/app differ")
	}
}

// TestMissingBitcode: a gradient that reaches a function compiled without
// gozyme stops the link with an error naming the function and its object,
// and leaves no output behind.
func TestMissingBitcode(t *testing.T) {
	setup(t)
	dir := copyProject(t, "wholeprog")
	env := toolEnv("CC=gozyme-cc")
	_, stderr, err := runErr(dir, env, "make", "app/bad")
	if err == nil {
		t.Fatalf("make app/bad succeeded; want a link error")
	}
	for _, want := range []string{"gozyme-ld: error:", "cannot differentiate 'f'", "'opaque'", "extern/opaque.o", "no embedded bitcode"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("error output lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "app", "bad")); err == nil {
		t.Errorf("app/bad was left behind")
	}
}

// TestCorruptBitcode: an object whose embedded bitcode is damaged (its
// header, or inside a block of an archive member) stops the link with an
// error naming the object or the member, and leaves no output behind.
func TestCorruptBitcode(t *testing.T) {
	setup(t)
	dir := copyProject(t, "wholeprog")
	env := toolEnv("CC=gozyme-cc")
	run(t, dir, env, "make", "loss/check.o", "lib/gradlib.o", "lib/model.o", "lib/mag.o", "lib/unused.o", "app/multi.o")
	damage := func(obj string, at func(size int) int) {
		t.Helper()
		path := filepath.Join(dir, obj)
		f, err := elf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		s := f.Section(".llvmbc")
		f.Close()
		if s == nil {
			t.Fatalf("%s has no .llvmbc", obj)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		off := int(s.Offset) + at(int(s.Size))
		for i := 0; i < 16; i++ {
			data[off+i] = 0xff
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		obj   string
		at    func(int) int
		wants []string
	}{
		{"loss/check.o", func(int) int { return 0 }, []string{"loss/check.o", "corrupt .llvmbc"}},
		{"lib/gradlib.o", func(n int) int { return n / 2 }, []string{"lib/libmodel.a(gradlib.o)"}},
	} {
		orig, err := os.ReadFile(filepath.Join(dir, c.obj))
		if err != nil {
			t.Fatal(err)
		}
		damage(c.obj, c.at)
		os.Remove(filepath.Join(dir, "lib", "libmodel.a"))
		_, stderr, err := runErr(dir, env, "make", "app/multi")
		if err == nil {
			t.Errorf("%s damaged: the link succeeded", c.obj)
		}
		for _, w := range append(c.wants, "gozyme-ld: error:") {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s damaged: error lacks %q:\n%s", c.obj, w, stderr)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "app", "multi")); err == nil {
			t.Errorf("%s damaged: app/multi was left behind", c.obj)
		}
		os.WriteFile(filepath.Join(dir, c.obj), orig, 0o644)
	}
}
