package e2e

import (
	"bytes"
	"debug/elf"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The tests of this file build tests/projects/dropin: gozyme-cc as a
// drop-in for clang-14. A link means what ld makes of it (weak and strong
// definitions, archives, --allow-multiple-definition, --wrap, --defsym,
// -flto objects), objects are clang's own, configure probes get clang's
// answers, and bad inputs are named.

// compile runs gozyme-cc (or another compiler) -c in dir.
func compile(t *testing.T, dir, cc string, args ...string) {
	t.Helper()
	run(t, dir, toolEnv(), cc, append([]string{"-c"}, args...)...)
}

// valueAndGrad parses "NAME(3)=V grad=G" as the dropin programs print it.
func valueAndGrad(t *testing.T, out string) (v, g float64) {
	t.Helper()
	f := strings.Fields(strings.TrimSpace(out))
	if len(f) != 2 || !strings.Contains(f[0], "=") || !strings.HasPrefix(f[1], "grad=") {
		t.Fatalf("unexpected output %q", out)
	}
	v, err1 := strconv.ParseFloat(f[0][strings.IndexByte(f[0], '=')+1:], 64)
	g, err2 := strconv.ParseFloat(strings.TrimPrefix(f[1], "grad="), 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("unexpected output %q", out)
	}
	return v, g
}

// expectRun runs exe and checks the value and derivative it prints.
func expectRun(t *testing.T, dir, exe string, wantV, wantG float64) {
	t.Helper()
	v, g := valueAndGrad(t, run(t, dir, toolEnv(), exe))
	if v != wantV || math.Abs(g-wantG) > 1e-12*math.Abs(wantG) {
		t.Errorf("%s printed value %g derivative %g, want %g and %g", filepath.Base(exe), v, g, wantV, wantG)
	}
}

// expectLinkError runs a command that must fail with stderr naming every
// one of wants, without a Go panic, and leave no file at out.
func expectLinkError(t *testing.T, dir, out string, wants []string, name string, args ...string) {
	t.Helper()
	_, stderr, err := runErr(dir, toolEnv(), name, args...)
	if err == nil {
		t.Fatalf("%s %s succeeded; want an error", name, strings.Join(args, " "))
	}
	for _, w := range wants {
		if !strings.Contains(stderr, w) {
			t.Errorf("error output lacks %q:\n%s", w, stderr)
		}
	}
	for _, bad := range []string{"goroutine ", "panic:", "gozyme-cc-"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("error output shows %q (a crash or a temporary file):\n%s", bad, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
		t.Errorf("%s was left behind", out)
	}
}

// TestLinkResolvesLikeLD: of a weak sq in the caller's object and a strong
// one elsewhere the program runs the strong one, and the derivative is of
// it (link order either way; the strong one from another gozyme object);
// from an object without bitcode (gcc's) the link stops naming it; from an
// archive member nothing else pulls in, the weak one stays (ld does not
// load members for weak definitions); two strong definitions are an error
// unless --allow-multiple-definition, where the first is the program's.
func TestLinkResolvesLikeLD(t *testing.T) {
	setup(t)
	dir := copyProject(t, "dropin")
	gz := tool("gozyme-cc")
	for _, src := range []string{"weakmain", "strong", "strong2"} {
		compile(t, dir, gz, "-O2", src+".c", "-o", src+".o")
	}
	compile(t, dir, "gcc", "-O2", "strong.c", "-o", "strong-gcc.o")
	run(t, dir, toolEnv(), "ar", "rcs", "libstrong.a", "strong.o")
	weak := func(x float64) (float64, float64) { return x*x + 3*x, 2*x + 3 }
	strong := func(x float64) (float64, float64) { return x*x*x + 2*x*x + 4*x, 3*x*x + 4*x + 4 }
	strong2 := func(x float64) (float64, float64) { return 5 * x * x, 10 * x }
	for _, c := range []struct {
		name string
		args []string
		want func(float64) (float64, float64)
	}{
		{"strong after", []string{"weakmain.o", "strong.o"}, strong},
		{"strong before", []string{"strong.o", "weakmain.o"}, strong},
		{"archive member not pulled", []string{"weakmain.o", "libstrong.a"}, weak},
		{"first of two strong", []string{"weakmain.o", "strong2.o", "strong.o", "-Wl,--allow-multiple-definition"}, strong2},
		{"first of two strong, -z muldefs", []string{"weakmain.o", "strong.o", "strong2.o", "-Wl,-z,muldefs"}, strong},
	} {
		t.Run(c.name, func(t *testing.T) {
			exe := strings.ReplaceAll(c.name, " ", "-")
			run(t, dir, toolEnv(), gz, append(append([]string{"-O2"}, c.args...), "-o", exe)...)
			v, g := c.want(3)
			expectRun(t, dir, filepath.Join(dir, exe), v, g)
		})
	}
	expectLinkError(t, dir, "gccstrong", []string{"'sq'", "strong-gcc.o", "weakmain.o", "no embedded bitcode"},
		gz, "-O2", "weakmain.o", "strong-gcc.o", "-o", "gccstrong")
	expectLinkError(t, dir, "twostrong", []string{"multiple definition of 'sq'", "strong.o", "strong2.o"},
		gz, "-O2", "weakmain.o", "strong.o", "strong2.o", "-o", "twostrong")
}

// TestWrapAndDefsym: --wrap=sq sends use's call to __wrap_sq (10·sq), as
// clang-14's link of the same objects does, and the derivative follows
// (use = 10x² + 3); --defsym=sq=cube sends it to cube (use = x³ + 3); a
// --defsym to an address leaves nothing to differentiate and says so.
func TestWrapAndDefsym(t *testing.T) {
	setup(t)
	dir := copyProject(t, "dropin")
	gz := tool("gozyme-cc")
	for _, src := range []string{"usemain", "sq", "wrap", "cube"} {
		compile(t, dir, gz, "-O2", src+".c", "-o", src+".o")
	}
	// The primal program of the same objects as clang-14 links it, with
	// a stand-in for the entry point: what gozyme's program must print.
	stub := filepath.Join(dir, "stub.c")
	if err := os.WriteFile(stub, []byte("double __enzyme_autodiff(void *f, ...) { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, toolEnv(), "clang-14", "-O2", "usemain.o", "sq.o", "wrap.o", "stub.c", "-Wl,--wrap=sq", "-o", "clangwrap")
	if v, _ := valueAndGrad(t, run(t, dir, toolEnv(), filepath.Join(dir, "clangwrap"))); v != 93 {
		t.Fatalf("clang-14's --wrap program printed use(3)=%g, want 93", v)
	}
	run(t, dir, toolEnv(), gz, "-O2", "usemain.o", "sq.o", "wrap.o", "-Wl,--wrap=sq", "-o", "wrapped")
	expectRun(t, dir, filepath.Join(dir, "wrapped"), 93, 60)
	run(t, dir, toolEnv(), gz, "-O2", "usemain.o", "sq.o", "cube.o", "-Wl,--defsym=sq=cube", "-o", "defsym")
	expectRun(t, dir, filepath.Join(dir, "defsym"), 30, 27)
	expectLinkError(t, dir, "defsymaddr", []string{"'sq'", "--defsym"},
		gz, "-O2", "usemain.o", "cube.o", "-Wl,--defsym=sq=0x1000", "-o", "defsymaddr")
}

// TestWrapLibcAllocator: --wrap of libc's malloc, realloc and free, whose
// wrappers call __real_malloc and friends: no bitcode defines malloc, so
// __real_malloc must stay for the linker to resolve (renamed to malloc in
// the link's module, the linker wrapped it again and __wrap_malloc called
// itself until the stack ran out). use(x) = x^4 + 3.
func TestWrapLibcAllocator(t *testing.T) {
	setup(t)
	dir := copyProject(t, "dropin")
	gz := tool("gozyme-cc")
	for _, o := range []string{"-O0", "-O2"} {
		exe := "wrapalloc" + o
		run(t, dir, toolEnv(), gz, o, "wrapalloc.c", "-Wl,--wrap=malloc,--wrap=realloc,--wrap=free", "-o", exe)
		expectRun(t, dir, filepath.Join(dir, exe), 84, 108)
	}
}

// TestLTOObjects: -flto objects are bitcode; they link with AD as a
// compile-and-link line, as separate objects, mixed with fat objects and
// from an archive of bitcode members.
func TestLTOObjects(t *testing.T) {
	setup(t)
	dir := copyProject(t, "dropin")
	gz := tool("gozyme-cc")
	run(t, dir, toolEnv(), gz, "-O2", "-flto", "usemain.c", "sq.c", "-o", "onestep")
	expectRun(t, dir, filepath.Join(dir, "onestep"), 12, 6)
	compile(t, dir, gz, "-O2", "-flto", "usemain.c", "-o", "usemain-lto.o")
	compile(t, dir, gz, "-O2", "-flto", "sq.c", "-o", "sq-lto.o")
	compile(t, dir, gz, "-O2", "sq.c", "-o", "sq.o")
	run(t, dir, toolEnv(), "llvm-ar-14", "rcs", "libsq-lto.a", "sq-lto.o")
	for name, args := range map[string][]string{
		"separate": {"usemain-lto.o", "sq-lto.o"},
		"mixed":    {"usemain-lto.o", "sq.o"},
		"archive":  {"usemain-lto.o", "libsq-lto.a"},
	} {
		run(t, dir, toolEnv(), gz, append(append([]string{"-O2", "-flto"}, args...), "-o", name)...)
		expectRun(t, dir, filepath.Join(dir, name), 12, 6)
	}
}

// sectionBytes returns a section's contents (nil when absent) and flags.
func sectionBytes(t *testing.T, path, name string) ([]byte, elf.SectionFlag) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(name)
	if s == nil {
		return nil, 0
	}
	data, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return data, s.Flags
}

// sameFiles fails unless two files hold the same bytes.
func sameFiles(t *testing.T, a, b, what string) {
	t.Helper()
	x, errX := os.ReadFile(a)
	y, errY := os.ReadFile(b)
	if errX != nil || errY != nil {
		t.Fatal(errX, errY)
	}
	if !bytes.Equal(x, y) {
		i := 0
		for i < len(x) && i < len(y) && x[i] == y[i] {
			i++
		}
		t.Errorf("%s: %s and %s differ (%d and %d bytes, first at %#x)", what, filepath.Base(a), filepath.Base(b), len(x), len(y), i)
	}
}

// TestObjectsAreClangs: at -O0..-O3 and -Os, with and without -g, an
// object of gozyme-cc is clang-14's with the embedded bitcode added (the
// same bytes once the bitcode sections are removed from it, and the same
// executable linked from it); with the user's own -fembed-bitcode, the
// .llvmbc and .llvmcmd sections are clang's own, kept in executables, and
// an AD link keeps them too.
func TestObjectsAreClangs(t *testing.T) {
	setup(t)
	dir := copyProject(t, "dropin")
	env := toolEnv()
	gz := tool("gozyme-cc")
	for _, opt := range []string{"-O0", "-O1", "-O2", "-O3", "-Os", "-O0 -g", "-O2 -g"} {
		flags := strings.Fields(opt)
		name := strings.ReplaceAll(strings.Join(flags, ""), "-", "")
		clangObj, gzObj := "cold-clang"+name+".o", "cold-gz"+name+".o"
		compile(t, dir, "clang-14", append(flags, "cold.c", "-o", clangObj)...)
		compile(t, dir, gz, append(flags, "cold.c", "-o", gzObj)...)
		run(t, dir, env, "llvm-objcopy-14", clangObj, "a-"+clangObj)
		run(t, dir, env, "llvm-objcopy-14", "-R", ".llvmbc", "-R", ".llvmcmd", gzObj, "a-"+gzObj)
		sameFiles(t, filepath.Join(dir, "a-"+clangObj), filepath.Join(dir, "a-"+gzObj), opt+": objects without bitcode sections")
		run(t, dir, env, "clang-14", clangObj, "-o", "exe-"+clangObj)
		run(t, dir, env, "clang-14", gzObj, "-o", "exe-"+gzObj)
		sameFiles(t, filepath.Join(dir, "exe-"+clangObj), filepath.Join(dir, "exe-"+gzObj), opt+": executables")
	}
	for _, embed := range []string{"-fembed-bitcode", "-fembed-bitcode=marker"} {
		compile(t, dir, "clang-14", "-O2", embed, "cold.c", "-o", "emb-clang.o")
		compile(t, dir, gz, "-O2", embed, "cold.c", "-o", "emb-gz.o")
		for _, s := range []string{".llvmbc", ".llvmcmd"} {
			want, _ := sectionBytes(t, filepath.Join(dir, "emb-clang.o"), s)
			got, flags := sectionBytes(t, filepath.Join(dir, "emb-gz.o"), s)
			if !bytes.Equal(got, want) || flags&shfExclude != 0 {
				t.Errorf("%s: %s is not clang's (%d bytes, want %d; flags %v)", embed, s, len(got), len(want), flags)
			}
		}
		run(t, dir, env, "clang-14", "emb-clang.o", "-o", "emb-clang")
		run(t, dir, env, "clang-14", "emb-gz.o", "-o", "emb-gz")
		sameFiles(t, filepath.Join(dir, "emb-clang"), filepath.Join(dir, "emb-gz"), embed+": executables")
	}
	// An AD link of objects with the user's embedded bitcode: gozyme's
	// own sections feed AD, and the program keeps the user's.
	for _, src := range []string{"usemain", "sq"} {
		compile(t, dir, gz, "-O2", "-fembed-bitcode", src+".c", "-o", src+"-emb.o")
	}
	run(t, dir, env, gz, "-O2", "usemain-emb.o", "sq-emb.o", "-o", "emb-ad")
	expectRun(t, dir, filepath.Join(dir, "emb-ad"), 12, 6)
	if bc, _ := sectionBytes(t, filepath.Join(dir, "emb-ad"), ".llvmbc"); len(bc) == 0 {
		t.Errorf("the AD link dropped the user's .llvmbc")
	}
}

// TestProbesAnswerAsClang: a configure probe that compiles and links in
// one line gets clang-14's verdict on its arguments: -static-libstdc++ is
// unused in a C link, a warning, an error under -Werror.
func TestProbesAnswerAsClang(t *testing.T) {
	setup(t)
	dir := copyProject(t, "dropin")
	for _, c := range []struct {
		args []string
		fail bool
	}{
		{[]string{"-Werror", "-static-libstdc++", "probe.c", "-o", "probe"}, true},
		{[]string{"-static-libstdc++", "probe.c", "-o", "probe"}, false},
		{[]string{"-Werror", "-O2", "probe.c", "-o", "probe"}, false},
	} {
		os.Remove(filepath.Join(dir, "probe"))
		_, clangErr, errC := runErr(dir, toolEnv(), "clang-14", c.args...)
		os.Remove(filepath.Join(dir, "probe"))
		_, gzErr, errG := runErr(dir, toolEnv(), tool("gozyme-cc"), c.args...)
		if (errC != nil) != c.fail || (errG != nil) != c.fail {
			t.Errorf("%v: clang-14 failed: %v, gozyme-cc failed: %v; want %v", c.args, errC != nil, errG != nil, c.fail)
		}
		want := strings.Contains(clangErr, "argument unused during compilation: '-static-libstdc++'")
		if got := strings.Contains(gzErr, "argument unused during compilation: '-static-libstdc++'"); got != want || strings.Count(gzErr, "argument unused") > 1 {
			t.Errorf("%v: gozyme-cc said %q, clang-14 %q", c.args, gzErr, clangErr)
		}
	}
}

// TestReproducibleObjects: the same sources built in two directories
// (absolute source paths and -ffile-prefix-map, as CMake and reproducible
// builds use them; -g) give the same objects and archives.
func TestReproducibleObjects(t *testing.T) {
	setup(t)
	var objs, libs [2]string
	for i := range objs {
		dir := copyProject(t, "dropin")
		// Two copies at paths of different lengths.
		dir2 := filepath.Join(dir, strings.Repeat("d", i+1))
		if err := os.MkdirAll(dir2, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"usemain.c", "sq.c"} {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir2, f), data, 0o644)
		}
		for _, f := range []string{"usemain", "sq"} {
			compile(t, dir2, tool("gozyme-cc"), "-O2", "-g", "-ffile-prefix-map="+dir2+"=.", "-I"+dir2, filepath.Join(dir2, f+".c"), "-o", f+".o")
		}
		run(t, dir2, toolEnv(), "ar", "rcs", "lib.a", "usemain.o", "sq.o")
		objs[i], libs[i] = filepath.Join(dir2, "usemain.o"), filepath.Join(dir2, "lib.a")
	}
	sameFiles(t, objs[0], objs[1], "objects built in two directories")
	sameFiles(t, libs[0], libs[1], "archives built in two directories")
	if cmd, _ := sectionBytes(t, objs[0], ".llvmcmd"); bytes.Contains(cmd, []byte(filepath.Dir(objs[0]))) {
		t.Errorf(".llvmcmd holds the build directory: %q", cmd)
	}
}

// TestBadInputsNamed: each input gozyme cannot use stops the link with a
// compiler-style error naming it (the file, and the line where known), no
// crash and no output: a truncated object, garbage in an object's embedded
// bitcode (one the roots need, and the one with the roots alone), an archive with a corrupt member header, and programs that
// cannot be differentiated (a variadic callee, enzyme_dup without its
// shadow, inline assembly) built in one compile-and-link line, which name
// the source rather than a temporary object.
func TestBadInputsNamed(t *testing.T) {
	setup(t)
	dir := copyProject(t, "dropin")
	gz := tool("gozyme-cc")
	compile(t, dir, gz, "-O2", "gradmain.c", "-o", "gradmain.o")
	compile(t, dir, gz, "-O2", "cubic.c", "-o", "cubic.o")
	run(t, dir, toolEnv(), gz, "-O2", "gradmain.o", "cubic.o", "-o", "good")
	if out := strings.TrimSpace(run(t, dir, toolEnv(), filepath.Join(dir, "good"))); out != "27" {
		t.Fatalf("the undamaged program printed %q, want 27 (3x² at 3)", out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "cubic.o"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("truncated.o", data[:len(data)/3])
	garbage := append([]byte(nil), data...)
	bc := bytes.Index(garbage, []byte("BC\xc0\xde"))
	for i := bc + 40; i < bc+200; i++ {
		garbage[i] = byte(i * 7)
	}
	write("garbage.o", garbage)
	// The object with the roots damaged, alone in its module (the first
	// tool to read it is the pipeline's, not llvm-link).
	write("alone.c", []byte("#include <stdio.h>\ndouble __enzyme_autodiff(void *, ...);\n"+
		"static double cubic(double x) { return x * x * x; }\n"+
		"int main(void) { printf(\"%.17g\\n\", __enzyme_autodiff((void *)cubic, 3.0)); return 0; }\n"))
	compile(t, dir, gz, "-O2", "alone.c", "-o", "alone.o")
	alone, err := os.ReadFile(filepath.Join(dir, "alone.o"))
	if err != nil {
		t.Fatal(err)
	}
	bc = bytes.Index(alone, []byte("BC\xc0\xde"))
	for i := bc + 40; i < bc+200; i++ {
		alone[i] = byte(i * 7)
	}
	write("alone-garbage.o", alone)
	run(t, dir, toolEnv(), "ar", "rcs", "libcubic.a", "cubic.o")
	ar, err := os.ReadFile(filepath.Join(dir, "libcubic.a"))
	if err != nil {
		t.Fatal(err)
	}
	hdr := bytes.Index(ar, []byte("cubic.o/"))
	ar[hdr+58] = 'X' // the header's terminator
	write("libbroken.a", ar)
	for _, c := range []struct {
		input string
		wants []string
	}{
		{"truncated.o", []string{"truncated.o", "truncated"}},
		{"garbage.o", []string{"garbage.o", "corrupt embedded bitcode"}},
		{"libbroken.a", []string{"libbroken.a", "member header"}},
	} {
		expectLinkError(t, dir, "bad", append(c.wants, "gozyme-ld: error:"), gz, "-O2", "gradmain.o", c.input, "-o", "bad")
	}
	expectLinkError(t, dir, "bad", []string{"alone-garbage.o", "corrupt embedded bitcode", "gozyme-ld: error:"}, gz, "-O2", "alone-garbage.o", "-o", "bad")
	for _, c := range []struct {
		define string
		wants  []string
	}{
		{"VARIADIC", []string{"bad.c:", "'sum'", "variable argument list"}},
		{"NOSHADOW", []string{"bad.c:", "parameter 1 of 'f'", "enzyme_const"}},
		{"ASM", []string{"bad.c:", "inline assembly"}},
	} {
		for _, g := range []string{"", "-g"} {
			args := []string{"-O2", "-D" + c.define, "bad.c", "-o", "bad"}
			if g != "" {
				args = append(args, g)
			}
			expectLinkError(t, dir, "bad", c.wants, gz, args...)
		}
	}
}

// shfExclude is SHF_EXCLUDE, which debug/elf does not name.
const shfExclude = elf.SectionFlag(0x80000000)
