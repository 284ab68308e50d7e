package custom

import (
	"bytes"
	"fmt"
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

// enzyme_inactive and enzyme_function_like on declarations: functions and
// globals, static ones left out; RegistrationIR turns them into Enzyme's
// global forms, which link with a TU that defines or declares them.
func TestDeclaredOtherAttributes(t *testing.T) {
	clang, err := exec.LookPath("clang-14")
	if err != nil {
		t.Skip("clang-14 not installed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "d.c")
	os.WriteFile(src, []byte(`
__attribute__((enzyme_inactive)) void log_it(double);
__attribute__((enzyme_function_like("log1p"))) double my_log1p(double);
__attribute__((enzyme_inactive)) extern double counter;
__attribute__((enzyme_inactive)) static double hidden(double x) { return x; }
__attribute__((enzyme_inactive, enzyme_nofree)) double both(double);
`), 0o644)
	args := append([]string{"-fsyntax-only", "-Xclang", "-ast-dump=json", "-w"}, DefineFlags()...)
	out, err := exec.Command(clang, append(args, src)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	decls, err := DeclaredInAST(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range decls {
		got = append(got, fmt.Sprintf("%s:%v/%v/%s", d.Func, d.Global, d.Inactive, d.FunctionLike))
	}
	want := "both:false/true/ counter:true/true/ log_it:false/true/ my_log1p:false/false/log1p"
	if strings.Join(got, " ") != want {
		t.Errorf("declared\n %s\nwant\n %s", strings.Join(got, " "), want)
	}
	reg := RegistrationIR(decls, "d.c")
	link, err := exec.LookPath("llvm-link-14")
	if err != nil {
		t.Skip("llvm-link-14 not installed")
	}
	os.WriteFile(filepath.Join(dir, "tu.ll"), []byte("@counter = global double 0.0\ndeclare double @my_log1p(double)\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "reg.ll"), []byte(reg), 0o644)
	text, err := exec.Command(link, "-S", "-o", "-", filepath.Join(dir, "tu.ll"), filepath.Join(dir, "reg.ll")).CombinedOutput()
	if err != nil {
		t.Fatalf("llvm-link: %v\n%s\n%s", err, text, reg)
	}
	for _, w := range []string{`@"__enzyme_inactivefn.gozyme.log_it`, `@"__enzyme_inactive_global.gozyme.counter`, `bitcast (double* @counter to i8*)`,
		`@"__enzyme_function_like.gozyme.my_log1p`, `c"log1p\00"`} {
		if !strings.Contains(string(text), w) {
			t.Errorf("linked registrations lack %s:\n%s", w, text)
		}
	}
	if names := strings.Join(NamesInText(string(text)), " "); names != "both log_it my_log1p" {
		t.Errorf("NamesInText = %q, want the three functions", names)
	}
}
