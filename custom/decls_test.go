package custom

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
)

// The attributes of declarations, read from clang-14's JSON AST dump:
// every kind, C++ (mangled names), static functions left out.
func TestDeclaredInAST(t *testing.T) {
	clang, err := exec.LookPath("clang++-14")
	if err != nil {
		t.Skip("clang++-14 not installed")
	}
	src := filepath.Join(t.TempDir(), "d.cpp")
	os.WriteFile(src, []byte(`
double g_rev(double, double); void *g_aug(double); double g_fwd(double, double);
__attribute__((enzyme("augment", g_aug), enzyme("gradient", g_rev))) double g(double);
__attribute__((enzyme("forward", g_fwd))) double g(double);
namespace ns { double h_rev(double, double); __attribute__((enzyme("gradient", h_rev))) double h(double); }
extern "C" double c_rev(double, double);
extern "C" __attribute__((enzyme("gradient", c_rev))) double c(double);
static double s_rev(double, double); __attribute__((enzyme("gradient", s_rev))) static double s(double);
__attribute__((annotate("other", 1))) double plain(double);
constexpr bool flag = true; // a literal whose "value" is not a string
`), 0o644)
	out, err := exec.Command(clang, "-fsyntax-only", "-Xclang", "-ast-dump=json", "-w", "-D"+AttributeMacro, src).Output()
	if err != nil {
		t.Fatal(err)
	}
	decls, err := DeclaredInAST(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range decls {
		got = append(got, d.Func+"="+d.Augment+"/"+d.Gradient+"/"+d.Forward)
	}
	want := "_Z1gd=_Z5g_augd/_Z5g_revdd/_Z5g_fwddd _ZN2ns1hEd=/_ZN2ns5h_revEdd/ c=/c_rev/"
	if strings.Join(got, " ") != want {
		t.Errorf("declared rules\n %s\nwant\n %s", strings.Join(got, " "), want)
	}

	os.WriteFile(src, []byte(`double a(double, double); double b(double, double);
__attribute__((enzyme("gradient", a))) double f(double);
__attribute__((enzyme("gradient", b))) double f(double);`), 0o644)
	out, err = exec.Command(clang, "-fsyntax-only", "-Xclang", "-ast-dump=json", "-w", "-D"+AttributeMacro, "-xc", src).Output()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DeclaredInAST(bytes.NewReader(out)); err == nil || !strings.Contains(err.Error(), "two different enzyme(\"gradient\", ...) rules for 'f': 'a' and 'b'") {
		t.Errorf("conflicting declarations: err = %v", err)
	}
}

// The registrations gozyme-cc adds declare the functions a TU does not know
// as void(); Find gives rules that nothing defines the ABI's types, and
// drops registrations of functions nothing uses.
func TestRegistrationIRTypes(t *testing.T) {
	reg := RegistrationIR([]Declared{
		{Func: "f", Augment: "f_aug", Gradient: "f_rev", Forward: "f_fwd"},
		{Func: "unused", Gradient: "unused_rev"},
		{Func: "p", Augment: "p_aug", Gradient: "p_rev"},
	}, "dir/my file.c")
	// As gozyme-cc links them into a TU's bitcode.
	link, err := exec.LookPath("llvm-link-14")
	if err != nil {
		t.Skip("llvm-link-14 not installed")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tu.ll"), []byte("define double @f(double* %p, double %x) {\n  ret double %x\n}\n"+
		"define double* @p(double* %x) {\n  ret double* %x\n}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "reg.ll"), []byte(reg), 0o644)
	text, err := exec.Command(link, "-S", "-o", "-", filepath.Join(dir, "tu.ll"), filepath.Join(dir, "reg.ll")).Output()
	if err != nil {
		t.Fatalf("llvm-link: %v\n%s", err, reg)
	}
	m, err := irutil.ParseText("linked.ll", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	rules, err := Find(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 {
		t.Fatalf("%d rules, want 2 (f's and p's)", len(rules))
	}
	type sig struct {
		g    *ir.Func
		want string
	}
	for f, r := range rules {
		sigs := []sig{
			{f, "double (double*, double)"},
			{r.Augment, "i8* (double*, double*, double)"},
			{r.Gradient, "double (double*, double*, double, double, i8*)"},
			{r.Forward, "double (double*, double*, double, double)"},
		}
		if f.Name() == "p" {
			// Returning a pointer: the augmented forward returns {ret, dret}
			// and no tape, so the gradient takes none.
			sigs = []sig{
				{f, "double* (double*)"},
				{r.Augment, "{ double*, double* } (double*, double*)"},
				{r.Gradient, "void (double*, double*)"},
			}
		}
		for _, c := range sigs {
			if got := c.g.Sig.String(); got != c.want {
				t.Errorf("%s: type %s, want %s", c.g.Name(), got, c.want)
			}
		}
	}
	if !strings.Contains(strings.Join(NamesInText(reg), " "), "f") {
		t.Errorf("NamesInText does not see the registration of f:\n%s", reg)
	}
}
