package lto

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// irsymtabC covers the symbol kinds llvm-nm tells apart: common, weak
// defined and undefined, local, alias, thread-local, hidden, module asm,
// private strings, used and constructor globals.
const irsymtabC = `
int common_var;
int init_var = 1;
static int local_var = 2;
extern int ext_var;
__attribute__((weak)) int weak_def(void) { return 1; }
extern int weak_undef(void) __attribute__((weak));
static int local_fn(int x) { return x + local_var; }
int alias_target(void) { return 3; }
int alias_name(void) __attribute__((alias("alias_target")));
__thread int tls_var = 4;
__attribute__((visibility("hidden"))) int hidden_fn(void) { return 5; }
asm(".globl asm_sym\nasm_sym:\n.long 0");
const char *str(void) { return "private string"; }
__attribute__((used)) static int used_local = 6;
int ctor_ran;
__attribute__((constructor)) static void ctor(void) { ctor_ran = 1; }
int user(int x) { return local_fn(x) + ext_var + (weak_undef ? weak_undef() : 0) + common_var; }
`

// irsymtabCXX adds C++'s linkonce_odr templates and inline functions,
// comdats, vtables, typeinfo and guard variables.
const irsymtabCXX = `
#include <vector>
template <class T> T twice(T x) { return x + x; }
struct Base { virtual ~Base() {} virtual int f() { return 1; } };
struct Derived : Base { int f() override { return 2; } };
inline int counter() { static int n = twice(1); return ++n; }
int use(Base *b) { std::vector<double> v(3); return b->f() + twice(2) + counter() + (int)v.size(); }
Base *make() { return new Derived; }
`

// TestIRSymtabMatchesLLVMNM reads the symbols of -flto objects and of
// embedded bitcode, C and C++ at -O0 and -O2, from the irsymtab and
// compares them with llvm-nm's listing.
func TestIRSymtabMatchesLLVMNM(t *testing.T) {
	t.Parallel()
	nm := needTool(t, "llvm-nm-14")
	clang := needTool(t, "clang-14")
	dir := t.TempDir()
	c := writeFile(t, dir, "syms.c", irsymtabC)
	cxx := writeFile(t, dir, "syms.cpp", irsymtabCXX)
	cases := []struct {
		name string
		args []string
	}{
		{"c-lto-O0", []string{"-c", "-flto", "-O0", "-fcommon", c}},
		{"c-lto-O2", []string{"-c", "-flto", "-O2", "-fcommon", c}},
		{"c-embedded-O2", []string{"-c", "-O2", "-fcommon", "-Xclang", "-fembed-bitcode=all", c}},
		{"c-embedded-pic", []string{"-c", "-O1", "-fPIC", "-Xclang", "-fembed-bitcode=all", c}},
		{"cxx-lto-O2", []string{"-c", "-flto", "-O2", "-x", "c++", cxx}},
		{"cxx-embedded-O0", []string{"-c", "-O0", "-x", "c++", "-Xclang", "-fembed-bitcode=all", cxx}},
		{"cxx-embedded-O3", []string{"-c", "-O3", "-x", "c++", "-Xclang", "-fembed-bitcode=all", cxx}},
	}
	for _, tc := range cases {
		obj := filepath.Join(dir, tc.name+".o")
		run(t, dir, clang, append(tc.args, "-o", obj)...)
		data, err := os.ReadFile(obj)
		if err != nil {
			t.Fatal(err)
		}
		bc := data
		if !IsBitcode(data) {
			f, err := os.Open(obj)
			if err != nil {
				t.Fatal(err)
			}
			emb, err := ReadEmbedded(f, obj)
			f.Close()
			if err != nil || emb.Bitcode == nil {
				t.Fatalf("%s: no embedded bitcode: %v", tc.name, err)
			}
			bc = emb.Bitcode
		}
		got, err := irsymtabLines(bc)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		p := filepath.Join(dir, tc.name+".bc")
		if err := os.WriteFile(p, bc, 0o644); err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		for _, l := range strings.Split(string(run(t, dir, nm, "--format=posix", p)), "\n") {
			if f := strings.Fields(l); len(f) >= 2 {
				want.WriteString(f[0] + " " + f[1] + "\n")
			}
		}
		if got != want.String() {
			t.Errorf("%s: irsymtab lists\n%s\nllvm-nm lists\n%s", tc.name, got, want.String())
		}
		if !strings.Contains(got, "use") && !strings.Contains(got, "user") {
			t.Errorf("%s: the listing misses the defined function: %s", tc.name, got)
		}
	}
}

// TestIRSymtabRefusesWhatItDoesNotKnow leaves bitcode without a table it
// reads (truncated, concatenated modules, another format version) to
// llvm-nm.
func TestIRSymtabRefusesWhatItDoesNotKnow(t *testing.T) {
	t.Parallel()
	clang := needTool(t, "clang-14")
	dir := t.TempDir()
	c := writeFile(t, dir, "a.c", "int f(int x) { return x; }\n")
	obj := filepath.Join(dir, "a.o")
	run(t, dir, clang, "-c", "-flto", "-O2", c, "-o", obj)
	bc, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := irsymtabLines(bc); err != nil {
		t.Fatalf("the whole file: %v", err)
	}
	if _, err := irsymtabLines(bc[:len(bc)/2]); err == nil {
		t.Error("a truncated file was read")
	}
	if _, err := irsymtabLines(append(append([]byte{}, bc...), bc...)); err == nil {
		t.Error("two concatenated modules were read")
	}
	ids, blobs, err := bitcodeBlobs(bc, func(id uint64) bool { return id == bitcodeSymtabBlock })
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if id == bitcodeSymtabBlock {
			// The blob aliases the file: a new version number in place.
			blobs[i][0] = irsymtabVersion + 1
		}
	}
	if _, err := irsymtabLines(bc); err == nil {
		t.Error("a table of another format version was read")
	}
}
