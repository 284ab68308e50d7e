package irutil

import (
	"strings"
	"testing"
)

// TestSpillLongLiveValues: values used far from their definition go
// through a slot, with one reload for close uses in one block and another
// in another block; a value a phi uses and one used close by stay; the
// program computes the same (run through lli).
func TestSpillLongLiveValues(t *testing.T) {
	src := `%struct.S = type { double }

declare double @sin(double)

define double @f(double %v, i1 %c) {
entry:
  %a = fmul double %v, 3.000000e+00
  %b = tail call double @sin(double %v)
  %p = fadd double %v, 2.000000e+00
  %n = fptosi double %v to i32
  %k = icmp sgt i32 %n, 0
` + chain("z", "%a", 12) + `  %u1 = fadd double %z.11, %a
  %u2 = fadd double %u1, %a
  %u3 = fadd double %u2, %b
  br i1 %c, label %then, label %join

then:                                             ; preds = %entry
  %t = fmul double %a, %u3
  %sel = select i1 %k, double %t, double %b
  br label %join

join:                                             ; preds = %then, %entry
  %m = phi double [ %sel, %then ], [ %p, %entry ]
  %r = fadd double %m, %v
  ret double %r
}

define i32 @main() {
  %x = call double @f(double 1.000000e+00, i1 true)
  %y = call double @f(double 2.000000e+00, i1 false)
  %s = fadd double %x, %y
  %i = fptosi double %s to i32
  ret i32 %i
}
`
	out, n, err := SpillLongLiveValues(src, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("spilled %d values, want 3 (%%a, %%b, %%k)\n%s", n, out)
	}
	for _, want := range []string{
		"  %gozyme.spill.1 = alloca double\n",
		"  %a = fmul double %v, 3.000000e+00\n  store double %a, double* %gozyme.spill.1\n",
		"  %gozyme.spill.1.r1 = load double, double* %gozyme.spill.1\n  %u1 = fadd double %z.11, %gozyme.spill.1.r1\n  %u2 = fadd double %u1, %gozyme.spill.1.r1\n",
		"  %gozyme.spill.1.r2 = load double, double* %gozyme.spill.1\n  %t = fmul double %gozyme.spill.1.r2, %u3\n",
		"  store i1 %k, i1* %gozyme.spill.3\n",
		"  %m = phi double [ %sel, %then ], [ %p, %entry ]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if same, n, _ := SpillLongLiveValues(src, 8, func(h string) bool { return strings.Contains(h, "@main") }); n != 0 || same != src {
		t.Errorf("only @main: %d spilled", n)
	}
	if same, n, _ := SpillLongLiveValues(src, 100, nil); n != 0 || same != src {
		t.Errorf("distance 100: %d spilled", n)
	}
	dir := t.TempDir()
	exit := func(name, text string) int { return lliExit(t, dir, name, text) }
	if want, got := exit("orig", src), exit("spilled", out); want != got || want == 0 {
		t.Errorf("spilled program exits %d, the original %d", got, want)
	}
}

// TestStorableResult: the types read off instructions, and those refused.
func TestStorableResult(t *testing.T) {
	for rhs, want := range map[string]string{
		"fmul fast double %a, %b":                          "double",
		"fneg double %a":                                   "double",
		"load double*, double** %p, align 8":               "double*",
		"load volatile double, double* %p":                 "",
		"sitofp i32 %x to double":                          "double",
		"bitcast i8* %p to %struct.S*, !dbg !4":            "%struct.S*",
		"fcmp fast olt double %a, %b":                      "i1",
		"icmp eq <2 x i32> %a, %b":                         "",
		"tail call fast double @llvm.sin.f64(double %x)":   "double",
		"call noalias i8* @malloc(i64 8)":                  "i8*",
		"call double (i8*, ...) @g(i8* %p)":                "",
		"call double %fp(double %x)":                       "",
		"call { double, double } @pair()":                  "",
		"call void @h()":                                   "",
		"fadd <2 x double> %a, %b":                         "<2 x double>",
		"invoke double @f() to label %a unwind label %b":   "",
		"select i1 %c, double %a, double %b":               "",
		"getelementptr inbounds double, double* %x, i64 1": "",
		"musttail call double @f(double %x)":               "",
		"extractvalue { double, double } %p, 0":            "",
		"alloca double, align 8":                           "",
	} {
		if got := storableResult(rhs); got != want {
			t.Errorf("%q: got %q, want %q", rhs, got, want)
		}
	}
}
