package wrapper

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// binDir holds gozyme-cc, gozyme-c++ and gozyme-ld built for the
// behaviour tests ("" when clang-14 is missing and they are skipped).
var binDir string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if _, err := exec.LookPath("clang-14"); err == nil {
		dir, err := os.MkdirTemp("", "gozyme-wrapper-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		build := exec.Command("go", "build", "-o", dir+"/",
			"github.com/gozyme/gozyme/cmd/gozyme-cc",
			"github.com/gozyme/gozyme/cmd/gozyme-c++",
			"github.com/gozyme/gozyme/cmd/gozyme-ld")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building the wrapper: %v\n%s", err, out)
			return 1
		}
		binDir = dir
	}
	return m.Run()
}

// result is what a command did.
type result struct {
	stdout, stderr string
	code           int
}

// runIn runs a program in dir with extra environment and optional stdin.
func runIn(t *testing.T, dir string, env []string, stdin string, prog string, args ...string) result {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOZYME_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running %s: %v", prog, err)
	}
	code := 0
	if ee != nil {
		code = ee.ExitCode()
	}
	return result{out.String(), errb.String(), code}
}

// setup skips without clang-14 and returns a work directory holding files.
func setup(t *testing.T, files map[string]string) string {
	t.Helper()
	if binDir == "" {
		t.Skip("clang-14 is not installed")
	}
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func cc() string  { return filepath.Join(binDir, "gozyme-cc") }
func cxx() string { return filepath.Join(binDir, "gozyme-c++") }

const (
	mainC = "#include <stdio.h>\nint twice(int);\nint main(void) { printf(\"%d\\n\", twice(21)); return 0; }\n"
	libC  = "int twice(int x) { return 2 * x; }\n"
	asmS  = ".text\n.globl answer\nanswer:\n\tmovl $42, %eax\n\tret\n"
)

// fatSections returns the flags of .llvmbc and .llvmcmd (absent: missing).
func fatSections(t *testing.T, path string) map[string]elf.SectionFlag {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]elf.SectionFlag{}
	for _, s := range f.Sections {
		if s.Name == ".llvmbc" || s.Name == ".llvmcmd" {
			got[s.Name] = s.Flags
		}
	}
	return got
}

const shfExclude elf.SectionFlag = 0x80000000

func checkFat(t *testing.T, path string) {
	t.Helper()
	secs := fatSections(t, path)
	for _, name := range []string{".llvmbc", ".llvmcmd"} {
		flags, ok := secs[name]
		if !ok {
			t.Errorf("%s has no %s section", path, name)
		} else if flags&shfExclude == 0 {
			t.Errorf("%s: %s flags %v lack SHF_EXCLUDE", path, name, flags)
		}
	}
}

func sectionData(t *testing.T, path, name string) []byte {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(name)
	if s == nil {
		t.Fatalf("%s has no %s", path, name)
	}
	data, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestCompileMakesFatObject(t *testing.T) {
	dir := setup(t, map[string]string{"lib.c": libC})
	for _, opt := range []string{"-O0", "-O2"} {
		r := runIn(t, dir, nil, "", cc(), opt, "-c", "-o", "lib.o", "lib.c")
		if r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Fatalf("%s: %+v", opt, r)
		}
		checkFat(t, filepath.Join(dir, "lib.o"))
		// The cc1 line holds what the link reads (the -O level), not
		// -disable-O0-optnone (the native code stays clang's) and no
		// directory (the object does not depend on where it was built).
		cmd := string(sectionData(t, filepath.Join(dir, "lib.o"), ".llvmcmd"))
		if !strings.Contains(cmd, "\x00"+opt+"\x00") || strings.Contains(cmd, "-disable-O0-optnone") || strings.Contains(cmd, dir) {
			t.Errorf("%s: cc1 line %q", opt, cmd)
		}
	}
	// Several sources without -o give base.o each, in the working directory.
	r := runIn(t, dir, nil, "", cc(), "-c", "lib.c", filepath.Join(dir, "lib.c"))
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	checkFat(t, filepath.Join(dir, "lib.o"))
}

func TestPassThroughIsIdentical(t *testing.T) {
	dir := setup(t, map[string]string{"lib.c": "#include <stddef.h>\n" + libC, "main.c": mainC})
	lines := [][]string{
		{"-E", "lib.c"},
		{"-E", "-dM", "-x", "c", "/dev/null"},
		{"-M", "main.c"},
		{"-MM", "lib.c"},
		{"-S", "-O2", "lib.c", "-o", "-"},
		{"--version"},
		{"-dumpmachine"},
		{"-print-file-name=libgcc.a"},
		{"-print-prog-name=ld"},
		{"-###", "-c", "lib.c"},
	}
	for _, args := range lines {
		want := runIn(t, dir, nil, "", "clang-14", args...)
		got := runIn(t, dir, nil, "", cc(), args...)
		// -### names the driver; clang-14 is the program either way.
		if got != want {
			t.Errorf("%q:\ngot  %+v\nwant %+v", args, got, want)
		}
	}
	// -S to a file: the same bytes.
	runIn(t, dir, nil, "", "clang-14", "-S", "-O1", "lib.c", "-o", "want.s")
	runIn(t, dir, nil, "", cc(), "-S", "-O1", "lib.c", "-o", "got.s")
	want, _ := os.ReadFile(filepath.Join(dir, "want.s"))
	got, _ := os.ReadFile(filepath.Join(dir, "got.s"))
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("-S output differs from clang-14's (%d vs %d bytes)", len(got), len(want))
	}
}

func TestDevNullOutput(t *testing.T) {
	dir := setup(t, map[string]string{"conftest.c": "int main(void) { return 0; }\n"})
	r := runIn(t, dir, nil, "", cc(), "-Werror", "-c", "conftest.c", "-o", "/dev/null")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode().IsRegular() {
		t.Fatalf("/dev/null became %v, %v", st, err)
	}
	r = runIn(t, dir, nil, "", cc(), "-o", "/dev/null", "conftest.c")
	if r.code != 0 {
		t.Fatalf("link to /dev/null: %+v", r)
	}
}

func TestAssemblyTakesNoEmbedFlag(t *testing.T) {
	dir := setup(t, map[string]string{"a.s": asmS, "b.S": asmS, "lib.c": libC})
	env := []string{"GOZYME_VERBOSE=1"}
	r := runIn(t, dir, env, "", cc(), "-Werror", "-c", "a.s", "-o", "a.o")
	if r.code != 0 || strings.Contains(r.stderr, "embed") || strings.Contains(r.stderr, "warning") {
		t.Fatalf("%+v", r)
	}
	if secs := fatSections(t, filepath.Join(dir, "a.o")); len(secs) != 0 {
		t.Errorf("assembly object has %v", secs)
	}
	// Mixed C and assembly: separate clang calls, only C gets bitcode.
	r = runIn(t, dir, nil, "", cc(), "-Werror", "-c", "lib.c", "b.S")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	checkFat(t, filepath.Join(dir, "lib.o"))
	if secs := fatSections(t, filepath.Join(dir, "b.o")); len(secs) != 0 {
		t.Errorf("assembly object has %v", secs)
	}
}

func TestStdin(t *testing.T) {
	dir := setup(t, nil)
	r := runIn(t, dir, nil, libC, cc(), "-x", "c", "-", "-c", "-o", "s.o")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	checkFat(t, filepath.Join(dir, "s.o"))
	r = runIn(t, dir, nil, libC, cc(), "-c", "-x", "c", "-")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	checkFat(t, filepath.Join(dir, "-.o"))
	prog := "#include <stdio.h>\nint main(void) { puts(\"stdin ok\"); return 0; }\n"
	r = runIn(t, dir, nil, prog, cc(), "-x", "c", "-", "-o", "app")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if out := runIn(t, dir, nil, "", filepath.Join(dir, "app")); out.stdout != "stdin ok\n" {
		t.Errorf("app printed %+v", out)
	}
}

func TestCompileAndLink(t *testing.T) {
	dir := setup(t, map[string]string{"main.c": mainC, "lib.c": libC})
	r := runIn(t, dir, nil, "", cc(), "-O2", "main.c", "lib.c", "-o", "app")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	if out := runIn(t, dir, nil, "", filepath.Join(dir, "app")); out.stdout != "42\n" {
		t.Errorf("app printed %+v", out)
	}
	if secs := fatSections(t, filepath.Join(dir, "app")); len(secs) != 0 {
		t.Errorf("executable kept %v", secs)
	}
	// CMake parses -v: the link line must show, run by gozyme-ld.
	r = runIn(t, dir, nil, "", cc(), "-v", "main.c", "lib.c")
	if r.code != 0 || !strings.Contains(r.stderr, filepath.Join(binDir, "gozyme-ld")+"\"") {
		t.Fatalf("-v output lacks the gozyme-ld link line: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.out")); err != nil {
		t.Errorf("no a.out: %v", err)
	}
	// No temporary objects are left beside the sources.
	if m, _ := filepath.Glob(filepath.Join(dir, "*.o")); len(m) != 0 {
		t.Errorf("left %q", m)
	}
}

func TestCXXCompileAndLink(t *testing.T) {
	dir := setup(t, map[string]string{"m.cpp": "#include <iostream>\nint main() { std::cout << \"c++ ok\" << std::endl; }\n"})
	r := runIn(t, dir, nil, "", cxx(), "-O1", "-c", "m.cpp")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	checkFat(t, filepath.Join(dir, "m.o"))
	r = runIn(t, dir, nil, "", cxx(), "m.o", "-o", "app")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if out := runIn(t, dir, nil, "", filepath.Join(dir, "app")); out.stdout != "c++ ok\n" {
		t.Errorf("app printed %+v", out)
	}
}

func TestClangErrorPassesThrough(t *testing.T) {
	dir := setup(t, map[string]string{"bad.c": "int f(void) { return 1 }\n"})
	want := runIn(t, dir, nil, "", "clang-14", "-c", "bad.c", "-o", "bad.o")
	got := runIn(t, dir, nil, "", cc(), "-c", "bad.c", "-o", "bad.o")
	if want.code == 0 || got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.o")); err == nil {
		t.Errorf("bad.o left behind")
	}
	want = runIn(t, dir, nil, "", "clang-14", "bad.c", "-o", "bad")
	got = runIn(t, dir, nil, "", cc(), "bad.c", "-o", "bad")
	if got.code != want.code || got.stderr != want.stderr {
		t.Errorf("compile-and-link: got %+v\nwant %+v", got, want)
	}
	// A link error is clang's (and the linker's) too.
	runIn(t, dir, nil, "", "clang-14", "-c", "-x", "c", "/dev/null", "-o", "empty.o")
	got = runIn(t, dir, nil, "", cc(), "empty.o", "-o", "nomain")
	if got.code == 0 || !strings.Contains(got.stderr, "undefined reference to `main'") ||
		!strings.Contains(got.stderr, "linker command failed") {
		t.Errorf("link error: %+v", got)
	}
}

func TestOwnErrors(t *testing.T) {
	dir := setup(t, map[string]string{"lib.c": libC})
	r := runIn(t, dir, []string{`GOZYME_FLAGS=-D"X`}, "", cc(), "-c", "lib.c")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "gozyme-cc: error: GOZYME_FLAGS") {
		t.Errorf("%+v", r)
	}
	runIn(t, dir, nil, "", cc(), "-c", "lib.c")
	// A link without Enzyme calls is clang's own, errors included.
	r = runIn(t, dir, nil, "", cc(), "lib.o", "-fuse-ld=nosuch", "-o", "x")
	want := runIn(t, dir, nil, "", "clang-14", "lib.o", "-fuse-ld=nosuch", "-o", "x")
	if r.code != 1 || r != want {
		t.Errorf("%+v, want %+v", r, want)
	}
	// With one, gozyme-cc finds the linker itself.
	os.WriteFile(filepath.Join(dir, "root.c"), []byte("double __enzyme_autodiff(void *, ...);\nstatic double sq(double x) { return x * x; }\ndouble g(double x) { return __enzyme_autodiff((void *)sq, x); }\n"), 0o644)
	runIn(t, dir, nil, "", cc(), "-c", "root.c")
	r = runIn(t, dir, nil, "", cc(), "root.o", "-fuse-ld=nosuch", "-o", "x")
	if r.code != 1 || r.stderr != "gozyme-cc: error: invalid linker name in argument '-fuse-ld=nosuch'\n" {
		t.Errorf("%+v", r)
	}
}

func TestGozymeFlags(t *testing.T) {
	prog := "#include <stdio.h>\nint main(void) { printf(\"%d %s\\n\", VAL, STR); return 0; }\n"
	dir := setup(t, map[string]string{"m.c": prog})
	env := []string{`GOZYME_FLAGS=-DVAL=42 '-DSTR="a b"'`}
	r := runIn(t, dir, env, "", cc(), "m.c", "-o", "app")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if out := runIn(t, dir, nil, "", filepath.Join(dir, "app")); out.stdout != "42 a b\n" {
		t.Errorf("app printed %+v", out)
	}
	r = runIn(t, dir, env, "", cc(), "-E", "-P", "m.c")
	if !strings.Contains(r.stdout, `42, "a b"`) {
		t.Errorf("-E output lacks the macros: %+v", r)
	}
}

func TestResponseFile(t *testing.T) {
	dir := setup(t, map[string]string{
		"src dir/lib.c": libC, "main.c": mainC,
		"compile.params": "-O2\n-c\n\"src dir/lib.c\"\n-o\nlib.o\n",
		"link.params":    "main.c lib.o -o app\n",
	})
	r := runIn(t, dir, nil, "", cc(), "@compile.params")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	checkFat(t, filepath.Join(dir, "lib.o"))
	r = runIn(t, dir, nil, "", cc(), "@link.params")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if out := runIn(t, dir, nil, "", filepath.Join(dir, "app")); out.stdout != "42\n" {
		t.Errorf("app printed %+v", out)
	}
	// An unreadable @file is clang's business.
	want := runIn(t, dir, nil, "", "clang-14", "-c", "@missing.params")
	got := runIn(t, dir, nil, "", cc(), "-c", "@missing.params")
	if got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestDependencyFiles(t *testing.T) {
	dir := setup(t, map[string]string{"x.c": "#include \"x.h\"\n" + libC, "x.h": "\n", "main.c": mainC})
	r := runIn(t, dir, nil, "", cc(), "-MD", "-MQ", "x.o", "-MF", "x.o.d", "-o", "x.o", "-c", "x.c")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	dep, err := os.ReadFile(filepath.Join(dir, "x.o.d"))
	if err != nil || !strings.HasPrefix(string(dep), "x.o: x.c x.h") {
		t.Errorf("x.o.d = %q, %v", dep, err)
	}
	// Compile and link: the .d file is named after -o, as clang names it.
	r = runIn(t, dir, nil, "", cc(), "-MMD", "main.c", "x.c", "-o", "app")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if dep, err := os.ReadFile(filepath.Join(dir, "app.d")); err != nil || !strings.Contains(string(dep), "x.h") {
		t.Errorf("app.d = %q, %v", dep, err)
	}
}

// TestLinkEnvironment checks what gozyme-ld is told, with a stand-in that
// records its environment and runs the real linker; the wrapper is reached
// through a symlink, as installs do.
func TestLinkEnvironment(t *testing.T) {
	dir := setup(t, map[string]string{"main.c": mainC, "lib.c": libC})
	inst := filepath.Join(dir, "inst")
	os.MkdirAll(inst, 0o755)
	self, _ := os.ReadFile(cc())
	if err := os.WriteFile(filepath.Join(inst, "gozyme-cc"), self, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\necho \"$GOZYME_REAL_LD|${GOZYME_OPT_LEVEL-unset}\" >> " + filepath.Join(dir, "ld.log") +
		"\nexec \"$GOZYME_REAL_LD\" \"$@\"\n"
	os.WriteFile(filepath.Join(inst, "gozyme-ld"), []byte(fake), 0o755)
	os.Symlink(filepath.Join(inst, "gozyme-cc"), filepath.Join(dir, "cc-link"))
	wrapped := filepath.Join(dir, "cc-link")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"main.c", "lib.c", "-o", "app"}, "/usr/bin/ld|unset"},
		{[]string{"-O3", "main.c", "lib.c", "-o", "app", "-fuse-ld=lld"}, "/usr/lib/llvm-14/bin/ld.lld|3"},
		{[]string{"main.c", "lib.c", "-Os", "-o", "app", "-fuse-ld=lld", "--ld-path=/usr/bin/ld.bfd"}, "/usr/bin/ld.bfd|s"},
		{[]string{"main.c", "lib.c", "-fuse-ld=/usr/bin/ld.gold", "-O", "-o", "app"}, "/usr/bin/ld.gold|1"},
	} {
		os.Remove(filepath.Join(dir, "ld.log"))
		r := runIn(t, dir, nil, "", wrapped, c.args...)
		if r.code != 0 {
			t.Fatalf("%q: %+v", c.args, r)
		}
		log, _ := os.ReadFile(filepath.Join(dir, "ld.log"))
		if got := strings.TrimSpace(string(log)); got != c.want {
			t.Errorf("%q: gozyme-ld saw %q, want %q", c.args, got, c.want)
		}
		if out := runIn(t, dir, nil, "", filepath.Join(dir, "app")); out.stdout != "42\n" {
			t.Errorf("%q: app printed %+v", c.args, out)
		}
	}
}
