package custom

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
)

// What clang-14 emits for the registration form and for the attribute
// (through AttributeMacro), trimmed to what matters.
const rulesIR = `
@__enzyme_register_gradient_f = global [3 x i8*] [i8* bitcast (double (double*, i32)* @f to i8*), i8* bitcast (i8* (double*, double*, i32)* @aug to i8*), i8* bitcast (void (double*, double*, i32, double, i8*)* @rev to i8*)]
@.str = private unnamed_addr constant [16 x i8] c"enzyme:gradient\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [4 x i8] c"q.c\00", section "llvm.metadata"
@.args = private unnamed_addr constant { double (double, double)* } { double (double, double)* @q_grad }, section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { i8*, i8*, i8*, i32, i8* }] [{ i8*, i8*, i8*, i32, i8* } { i8* bitcast (double (double)* @q to i8*), i8* getelementptr inbounds ([16 x i8], [16 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([4 x i8], [4 x i8]* @.str.1, i32 0, i32 0), i32 7, i8* bitcast ({ double (double, double)* }* @.args to i8*) }], section "llvm.metadata"

declare double @f(double*, i32)
declare i8* @aug(double*, double*, i32)
declare void @rev(double*, double*, i32, double, i8*)
define double @q(double %x) {
  ret double %x
}
declare double @q_grad(double, double)
`

func TestFindAndNames(t *testing.T) {
	m, err := irutil.ParseText("rules.ll", []byte(rulesIR))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := Find(m)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for f, r := range rules {
		aug := ""
		if r.Augment != nil {
			aug = r.Augment.Name()
		}
		got[f.Name()] = aug + "/" + r.Gradient.Name()
	}
	if got["f"] != "aug/rev" || got["q"] != "/q_grad" || len(got) != 2 {
		t.Errorf("rules %v, want f: aug/rev and q: /q_grad", got)
	}
	if names := strings.Join(NamesInText(rulesIR), " "); names != "f q" {
		t.Errorf("NamesInText = %q, want \"f q\"", names)
	}
}

func TestCheckMismatches(t *testing.T) {
	for _, c := range []struct{ name, ir, want string }{
		{"missing d_ret", `define double @f(double %x) { ret double %x }
declare double @g(double)
@__enzyme_register_gradient_f = global [3 x i8*] [i8* bitcast (double (double)* @f to i8*), i8* null, i8* bitcast (double (double)* @g to i8*)]`,
			"takes 1 parameters (double); it must take 2 (double, double)"},
		{"missing shadow", `define double @f(double* %x) { ret double 0.0 }
declare void @g(double*, double)
@__enzyme_register_gradient_f = global [3 x i8*] [i8* bitcast (double (double*)* @f to i8*), i8* null, i8* bitcast (void (double*, double)* @g to i8*)]`,
			"it must take 3 (double*, double*, double)"},
		{"wrong return", `define double @f(double %x) { ret double %x }
declare float @g(double, double)
@__enzyme_register_gradient_f = global [3 x i8*] [i8* bitcast (double (double)* @f to i8*), i8* null, i8* bitcast (float (double, double)* @g to i8*)]`,
			"returns float; it must return the adjoints of the 1 floating-point parameters"},
		{"augment returns a double", `define double @f(double %x) { ret double %x }
declare double @a(double)
declare double @g(double, double, double)
@__enzyme_register_gradient_f = global [3 x i8*] [i8* bitcast (double (double)* @f to i8*), i8* bitcast (double (double)* @a to i8*), i8* bitcast (double (double, double, double)* @g to i8*)]`,
			"returns double; an augmented forward returns its tape as a pointer"},
	} {
		m, err := irutil.ParseText(c.name, []byte(c.ir))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Find(m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// A function returning a pointer: its augmented forward returns {ret, dret}
// or {tape, ret, dret} (through sret in C); the tape goes to the gradient.
func TestCheckPointerReturn(t *testing.T) {
	const ir = `
%pair = type { double*, double* }
%triple = type { i8*, double*, double* }
@__enzyme_register_gradient_a = global [3 x i8*] [i8* bitcast (double* (double*, i32)* @a to i8*), i8* bitcast (%pair (double*, double*, i32)* @a_aug to i8*), i8* bitcast (void (double*, double*, i32)* @a_rev to i8*)]
@__enzyme_register_gradient_b = global [3 x i8*] [i8* bitcast (double* (double*)* @b to i8*), i8* bitcast (void (%triple*, double*, double*)* @b_aug to i8*), i8* bitcast (void (double*, double*, i8*)* @b_rev to i8*)]
declare double* @a(double*, i32)
declare %pair @a_aug(double*, double*, i32)
declare void @a_rev(double*, double*, i32)
declare double* @b(double*)
declare void @b_aug(%triple* sret(%triple), double*, double*)
declare void @b_rev(double*, double*, i8*)
`
	m, err := irutil.ParseText("ptr.ll", []byte(ir))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Find(m); err != nil {
		t.Errorf("well-formed rules: %v", err)
	}
	bad := strings.Replace(ir, "void (double*, double*, i8*)* @b_rev", "void (double*, double*)* @b_rev", 1)
	bad = strings.Replace(bad, "declare void @b_rev(double*, double*, i8*)", "declare void @b_rev(double*, double*)", 1)
	if m, err = irutil.ParseText("bad.ll", []byte(bad)); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(m); err == nil || !strings.Contains(err.Error(), "'b_rev' of 'b'") || !strings.Contains(err.Error(), "must take 3") {
		t.Errorf("gradient without the tape: err = %v", err)
	}
	bad = strings.Replace(ir, "%pair (double*, double*, i32)* @a_aug", "i8* (double*, double*, i32)* @a_aug", 1)
	bad = strings.Replace(bad, "declare %pair @a_aug", "declare i8* @a_aug", 1)
	if m, err = irutil.ParseText("bad.ll", []byte(bad)); err != nil {
		t.Fatal(err)
	}
	if _, err := Find(m); err == nil || !strings.Contains(err.Error(), "'a' returns a pointer, so its augmented forward returns a struct") {
		t.Errorf("augmented forward returning only a tape: err = %v", err)
	}
}
