package irutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// editSource has every shape of definition DiscardDefinitions must turn
// into a declaration: a weak function with debug info, a C++ inline
// function in a COMDAT with a personality, weak and thread-local
// variables with initializers, a function alias, a variable alias, and a
// string holding "@sq" that a rename must not touch, and a function named
// by an asm label (@"\01lab" in IR, "lab" to the linker).
const editSource = `
struct S { double a[3]; int n; };
extern "C" {
__attribute__((weak)) double sq(double x) { return x * x; }
__attribute__((weak)) struct S table = {{1, 2, 3}, 4};
__attribute__((weak)) double (*hook)(double) = sq;
__attribute__((weak)) thread_local int counter = 7;
double cube(double x) { return x * x * x; }
double alias_cube(double) __attribute__((weak, alias("cube")));
extern struct S table_alias __attribute__((alias("table")));
const char *mail(void) { return "me@sq"; }
double labeled(double x) __asm__("lab");
__attribute__((weak)) double labeled(double x) { return x + 1; }
}
inline double thrower(double x) { if (x < 0) throw x; return sq(x); }
double use(double x) { try { return thrower(x) + hook(x) + table.a[1] + counter; } catch (double) { return 0; } }
`

// llvmTool finds an LLVM 14 tool or skips the test.
func llvmTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name + "-14")
	if err != nil {
		t.Skipf("%s-14 not installed", name)
	}
	return p
}

func runTool(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(llvmTool(t, name), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// definedSymbols lists what llvm-nm says a module defines and references.
func definedSymbols(t *testing.T, path string) (defined, undefined []string) {
	t.Helper()
	for _, l := range strings.Split(runTool(t, "llvm-nm", "--format=posix", path), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		if f[1] == "U" || f[1] == "w" || f[1] == "v" {
			undefined = append(undefined, f[0])
		} else {
			defined = append(defined, f[0])
		}
	}
	sort.Strings(defined)
	sort.Strings(undefined)
	return defined, undefined
}

func compileEditSource(t *testing.T) (dir, text string) {
	t.Helper()
	dir = t.TempDir()
	src := filepath.Join(dir, "edit.cpp")
	if err := os.WriteFile(src, []byte(editSource), 0o644); err != nil {
		t.Fatal(err)
	}
	ll := filepath.Join(dir, "edit.ll")
	runTool(t, "clang", "-S", "-emit-llvm", "-O1", "-g", "-Xclang", "-disable-llvm-passes", src, "-o", ll)
	data, err := os.ReadFile(ll)
	if err != nil {
		t.Fatal(err)
	}
	return dir, string(data)
}

// TestDiscardDefinitions: each discarded definition becomes a declaration
// llvm-as accepts (llvm-nm then lists it as undefined); the others stay.
func TestDiscardDefinitions(t *testing.T) {
	dir, text := compileEditSource(t)
	names := map[string]bool{"sq": true, "table": true, "hook": true, "counter": true, "alias_cube": true,
		"table_alias": true, "_Z7throwerd": true, "absent": true, "lab": true}
	out, done, err := DiscardDefinitions(text, names)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(done)
	if want := "_Z7throwerd alias_cube counter hook lab sq table table_alias"; strings.Join(done, " ") != want {
		t.Errorf("discarded %v, want %s", done, want)
	}
	ll := filepath.Join(dir, "discarded.ll")
	if err := os.WriteFile(ll, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	bc := filepath.Join(dir, "discarded.bc")
	runTool(t, "llvm-as", ll, "-o", bc)
	runTool(t, "opt", "-verify", bc, "-o", filepath.Join(dir, "verified.bc"))
	defined, undefined := definedSymbols(t, bc)
	for n := range names {
		for _, d := range defined {
			if d == n {
				t.Errorf("%s is still defined", n)
			}
		}
	}
	for _, want := range []string{"cube", "_Z3used", "mail"} {
		found := false
		for _, d := range defined {
			found = found || d == want
		}
		if !found {
			t.Errorf("%s lost its definition; defined: %v", want, defined)
		}
	}
	for _, want := range []string{"sq", "table", "hook", "counter", "_Z7throwerd"} {
		found := false
		for _, u := range undefined {
			found = found || u == want
		}
		if !found {
			t.Errorf("%s is not referenced as undefined; undefined: %v", want, undefined)
		}
	}
}

// TestRenameGlobals: references to a declared function take the new name
// (as ld's --wrap resolves them), strings keep theirs, and a declaration
// that meets another of the same name is kept once.
func TestRenameGlobals(t *testing.T) {
	dir, text := compileEditSource(t)
	// A module that only declares sq: the one --wrap=sq applies to.
	text, _, err := DiscardDefinitions(text, map[string]bool{"sq": true})
	if err != nil {
		t.Fatal(err)
	}
	text += "\ndeclare double @__wrap_sq(double)\n"
	out, err := RenameGlobals(text, map[string]string{"sq": "__wrap_sq", "__real_sq": "sq"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `c"me@sq\00"`) {
		t.Errorf("the string \"me@sq\" was changed")
	}
	if strings.Count(out, "@__wrap_sq(double") != 2 { // its declaration and the call
		t.Errorf("want one declaration of __wrap_sq:\n%s", out)
	}
	ll := filepath.Join(dir, "renamed.ll")
	if err := os.WriteFile(ll, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	bc := filepath.Join(dir, "renamed.bc")
	runTool(t, "llvm-as", ll, "-o", bc)
	_, undefined := definedSymbols(t, bc)
	if strings.Contains(" "+strings.Join(undefined, " ")+" ", " sq ") {
		t.Errorf("sq is still referenced: %v", undefined)
	}
}

// TestStripOptNone: optnone leaves the attribute groups, noinline stays.
func TestStripOptNone(t *testing.T) {
	in := "define void @f() #0 {\n  ret void\n}\nattributes #0 = { noinline nounwind optnone uwtable }\n"
	out, changed := StripOptNone(in)
	if !changed || strings.Contains(out, "optnone") || !strings.Contains(out, "noinline nounwind uwtable") {
		t.Errorf("StripOptNone: %q (changed %v)", out, changed)
	}
	if _, changed := StripOptNone("attributes #0 = { nounwind }\n"); changed {
		t.Errorf("nothing to strip, yet changed")
	}
}

func TestDropUnusedDeclarationsKeepsWhatIsNamed(t *testing.T) {
	t.Parallel()
	in := `@table = global [1 x i8*] [i8* bitcast (void ()* @inTable to i8*)]
@.str = private constant [10 x i8] c"@inString\00"

define void @root() {
  call void @called()
  ret void
}

; Function Attrs: nounwind
declare void @called() #0

; Function Attrs: nounwind
declare void @unused() #0

declare void @inTable()

declare void @"quoted unused"(i32)

declare void @inString()

declare void @selfOnly(void ()* @selfOnly)
`
	out := DropUnusedDeclarations(in)
	for _, kept := range []string{"@called()", "@inTable()", "@inString()", "define void @root()", "@table ="} {
		if !strings.Contains(out, kept) {
			t.Errorf("%s was dropped:\n%s", kept, out)
		}
	}
	for _, gone := range []string{"@unused", "@\"quoted unused\"", "@selfOnly"} {
		if strings.Contains(out, gone) {
			t.Errorf("%s was kept:\n%s", gone, out)
		}
	}
	if strings.Count(out, "; Function Attrs") != 1 {
		t.Errorf("the dropped declaration's comment stayed:\n%s", out)
	}
}
