package lto

import (
	"os"
	"path/filepath"
	"testing"
)

// quickScan finds an Enzyme call in an object, in an archive reached by -l
// (directly or through an input script) and ignores shared libraries; a
// link without one is reported as such.
func TestQuickScan(t *testing.T) {
	dir := t.TempDir()
	ar := needTool(t, "llvm-ar-14")
	plain := fatCompile(t, dir, "plain.o", `int main(void){return 0;}`)
	root := fatCompile(t, dir, "root.o", `double __enzyme_autodiff(void*, ...); double f(double x){return x*x;} double g(double x){return __enzyme_autodiff((void*)f, x);}`)
	lib := filepath.Join(dir, "lib")
	os.MkdirAll(lib, 0o755)
	run(t, dir, ar, "rcs", filepath.Join(lib, "libroot.a"), root)
	run(t, dir, ar, "rcs", filepath.Join(lib, "libplain.a"), plain)
	writeFile(t, lib, "libviascript.so", "/* GNU ld script */\nGROUP ( -lroot )\n")

	cases := []struct {
		name string
		args []string
		want bool
	}{
		{"plain objects", []string{plain, "-o", "a.out"}, false},
		{"root object", []string{plain, root, "-o", "a.out"}, true},
		{"root in -l archive", []string{plain, "-L" + lib, "-lroot", "-o", "a.out"}, true},
		{"plain -l archive", []string{plain, "-L" + lib, "-lplain", "-o", "a.out"}, false},
		{"archive through a script", []string{plain, "-L" + lib, "-lviascript", "-o", "a.out"}, true},
	}
	for _, c := range cases {
		line, err := ParseLinkArgs(c.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := quickScan(line, "ld", "", nil); got != c.want {
			t.Errorf("%s: quickScan = %v, want %v", c.name, got, c.want)
		}
		if got, _ := ScanInputs(c.args, nil); got != c.want {
			t.Errorf("%s: ScanInputs = %v, want %v", c.name, got, c.want)
		}
	}
	// ScanInputs knows no default directories: a library it cannot
	// find, or a sysroot it does not handle, may hold roots.
	for _, args := range [][]string{{plain, "-lnosuch"}, {plain, "--sysroot=/x", "-lplain"}} {
		if got, _ := ScanInputs(args, nil); !got {
			t.Errorf("ScanInputs(%q) = false, want true", args)
		}
	}
	// Other byte strings are looked for in the same read, past the first
	// Enzyme call too.
	for _, c := range []struct {
		also [][]byte
		want bool
	}{
		{[][]byte{[]byte("no such symbol"), []byte("main")}, true},
		{[][]byte{[]byte("no such symbol")}, false},
	} {
		roots, found := ScanInputs([]string{root, plain, "-o", "a.out"}, c.also)
		if !roots || found != c.want {
			t.Errorf("ScanInputs(root, plain, %q) = %v, %v; want true, %v", c.also, roots, found, c.want)
		}
	}
}
