package lto

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// cutSample is a module with a root, what it reaches, an internal counter
// a function outside the roots' reach reads, and code nothing reaches.
const cutSample = `@counter = internal global i32 0, align 4
@table = internal unnamed_addr constant [2 x double] [double 1.0, double 2.0], align 8
@ext = dso_local global double 0.0, align 8
@llvm.global_ctors = appending global [1 x { i32, void ()*, i8* }] [{ i32, void ()*, i8* } { i32 65535, void ()* @init, i8* null }]

define dso_local double @f(double %x) {
  %1 = load double, double* @ext, align 8
  %2 = call double @helper(double %x)
  %3 = fmul double %1, %2
  ret double %3
}

define internal double @helper(double %x) {
  %1 = load double, double* getelementptr inbounds ([2 x double], [2 x double]* @table, i64 0, i64 1), align 8
  %2 = fmul double %x, %1
  ret double %2
}

define internal void @bump() {
  %1 = load i32, i32* @counter, align 4
  %2 = add i32 %1, 1
  store i32 %2, i32* @counter, align 4
  ret void
}

define dso_local double @root(double %x) {
  call void @bump()
  %1 = call double (i8*, ...) @__enzyme_autodiff(i8* bitcast (double (double)* @f to i8*), double %x)
  ret double %1
}

define dso_local i32 @reader() {
  %1 = load i32, i32* @counter, align 4
  ret i32 %1
}

define dso_local double @unrelated(double %x) {
  %1 = call double @f(double %x)
  ret double %1
}

define internal void @init() {
  store double 2.0, double* @ext, align 8
  ret void
}

declare double @__enzyme_autodiff(i8*, ...)
`

func keys(m map[string]bool) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func TestPlanCut(t *testing.T) {
	t.Parallel()
	m, err := parseCutModule(cutSample)
	if err != nil {
		t.Fatal(err)
	}
	native := func(string) bool { return true }
	p, reason := planCut(m, native)
	if reason != "" {
		t.Fatalf("refused: %s", reason)
	}
	// The root, the counter its callee writes (one instance) and every
	// user of that counter are owned; f and ext are kept for AD, helper
	// and its table copied; unrelated and the constructor stay native.
	if got, want := keys(p.owned), "@bump @counter @reader @root"; got != want {
		t.Errorf("owned %s, want %s", got, want)
	}
	if got, want := keys(p.keep), "@bump @counter @ext @f @helper @reader @root @table"; got != want {
		t.Errorf("kept %s, want %s", got, want)
	}
	if got, want := strings.Join(p.ownedNames(m), " "), "reader root"; got != want {
		t.Errorf("owned names %s, want %s", got, want)
	}
	text, discard := cutText(m, p)
	if got, want := keys(discard), "unrelated"; got != want {
		t.Errorf("discarded %s, want %s", got, want)
	}
	for _, gone := range []string{"@init", "@llvm.global_ctors"} {
		if strings.Contains(text, gone) {
			t.Errorf("the cut still has %s:\n%s", gone, text)
		}
	}
	// After AD, what the native objects define and the link does not
	// own leaves: f and ext (and unrelated, already a declaration in the
	// cut).
	var out strings.Builder
	names, err := trimText(&out, strings.NewReader(cutSample), map[string]bool{"root": true, "reader": true}, native, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	trimmed := out.String()
	if got, want := keys(names), "ext f unrelated"; got != want {
		t.Errorf("trimmed %s, want %s", got, want)
	}
	for _, want := range []string{"declare dso_local double @f(double %x)", "@ext = external dso_local global double, align 8", "define dso_local double @root(double %x) {", "define internal double @helper(double %x) {"} {
		if !strings.Contains(trimmed, want) {
			t.Errorf("the trimmed module lacks %q:\n%s", want, trimmed)
		}
	}
}

// Cuts that cannot be proven are refused, with a reason.
func TestPlanCutRefuses(t *testing.T) {
	t.Parallel()
	native := func(string) bool { return true }
	for _, c := range []struct{ name, edit, old, reason string }{
		{"weak root", "define weak double @root(", "define dso_local double @root(", "(weak) reaches a root"},
		{"constructor reaches the counter", "define internal void @init() {\n  store i32 1, i32* @counter, align 4", "define internal void @init() {", "constructor"},
		{"variable holds a root", "@fp = dso_local global double (double)* @root, align 8\n@ext", "@ext", "the variable @fp refers to a root"},
		{"alias of a root", "@ra = alias double (double), double (double)* @root\n@ext", "@ext", "alias @ra"},
		{"module asm", "module asm \".globl x\"\n@ext", "@ext", "inline assembly"},
	} {
		text := strings.Replace(cutSample, c.old, c.edit, 1)
		m, err := parseCutModule(text)
		if err != nil {
			t.Fatal(err)
		}
		if _, reason := planCut(m, native); !strings.Contains(reason, c.reason) {
			t.Errorf("%s: reason %q, want one with %q", c.name, reason, c.reason)
		}
	}
}

// An internal function whose address the cut takes is owned with everything
// that uses it; one only called is copied.
func TestPlanCutTakenAddress(t *testing.T) {
	t.Parallel()
	text := cutSample + `
define internal double @cb(double %x) {
  ret double %x
}

define dso_local void @register(void (double (double)*)* %r) {
  call void %r(double (double)* @cb)
  ret void
}
`
	text = strings.Replace(text, "  call void @bump()\n", "  call void @bump()\n  %p = call double @cb(double %x)\n  call void @sink(double (double)* @cb)\n", 1) + "declare void @sink(double (double)*)\n"
	m, err := parseCutModule(text)
	if err != nil {
		t.Fatal(err)
	}
	p, reason := planCut(m, func(string) bool { return true })
	if reason != "" {
		t.Fatalf("refused: %s", reason)
	}
	for _, k := range []string{"@cb", "@register"} {
		if !p.owned[k] {
			t.Errorf("%s not owned; owned: %s", k, keys(p.owned))
		}
	}
}

func TestTrimTextStubs(t *testing.T) {
	t.Parallel()
	// enzyme_out as a module compiled without PIE declares it (dso_local).
	text := "@enzyme_dup = external local_unnamed_addr global i32, align 4\n@enzyme_out = external dso_local local_unnamed_addr global i32, align 4\ndeclare double @__enzyme_autodiff(i8*, ...)\n"
	var out strings.Builder
	if _, err := trimText(&out, strings.NewReader(text), nil, func(string) bool { return false }, []string{"__enzyme_autodiff", "enzyme_const", "enzyme_dup", "enzyme_out"}, nil); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"@enzyme_dup = weak hidden local_unnamed_addr global i32 zeroinitializer, align 4",
		"@enzyme_out = weak hidden local_unnamed_addr global i32 zeroinitializer, align 4",
		`@"enzyme_const" = weak hidden global i64 0`,
		`define weak hidden void @"__enzyme_autodiff"()`,
		"declare void @llvm.trap()",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stubs lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "declare double @__enzyme_autodiff") {
		t.Errorf("the entry point's declaration stayed:\n%s", got)
	}
}

// weakenSymbols makes the named global definitions weak and leaves the
// rest of the object as it was.
func TestWeakenSymbols(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	obj := plainCompile(t, dir, "w.o", "int keep(void) { return 1; }\nint owned(void) { return keep() + 1; }\nextern int other(void);\nint use(void) { return other(); }\n")
	data, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	out, n, err := weakenSymbols(data, map[string]bool{"owned": true, "other": true})
	if err != nil || n != 1 {
		t.Fatalf("weakened %d (%v), want 1", n, err)
	}
	if len(out) != len(data) {
		t.Fatalf("size changed: %d -> %d", len(data), len(out))
	}
	syms, err := elfSymbols(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		switch s.name {
		case "owned":
			if !s.weak || !s.defined {
				t.Errorf("owned: %+v, want a weak definition", s)
			}
		case "keep", "use":
			if s.weak {
				t.Errorf("%s became weak", s.name)
			}
		case "other":
			if s.defined || s.weak {
				t.Errorf("other: %+v, want an undefined reference as it was", s)
			}
		}
	}
}

// A function the roots reach that calls through a pointer may reach any
// address-taken function of the call's type: a vtable and its override
// that only code outside the cut refers to are kept in full; linkonce ones
// are pinned (defined with external linkage, so that the optimization
// before AD keeps them) where a native object defines them, else the cut
// is refused. Functions of other types stay out of it.
func TestPlanCutIndirectCallees(t *testing.T) {
	t.Parallel()
	extra := `
@vt = %s constant [1 x double (double)*] [double (double)* @over]

define %s double @over(double %%x) {
  ret double %%x
}

define dso_local void @maker(double (double)*** %%o) {
  store double (double)** getelementptr ([1 x double (double)*], [1 x double (double)*]* @vt, i64 0, i64 0), double (double)*** %%o
  ret void
}
`
	call := "  %2 = call double @helper(double %x)\n"
	indirect := call + "  %vp = load double (double)*, double (double)** undef\n  %vr = call double %vp(double %x)\n"
	otherType := call + "  %vp = load double (double, double)*, double (double, double)** undef\n  %vr = call fast double %vp(double %x, double %x)\n"
	for _, c := range []struct {
		name, linkage    string
		indirect, native bool
		kept, reason     string
	}{
		{"external", "dso_local", true, true, "@over @vt", ""},
		{"linkonce_odr", "linkonce_odr dso_local", true, true, "@over @vt", ""},
		{"linkonce_odr, not native", "linkonce_odr dso_local", true, false, "", "which no native object defines"},
		{"internal", "internal", true, true, "", "a call through a pointer may reach"},
		{"no indirect call", "linkonce_odr dso_local", false, true, "", ""},
		{"internal, a call of another type", "internal", true, true, "", ""},
		{"external, a call of another type", "dso_local", true, true, "", ""},
	} {
		text := cutSample + fmt.Sprintf(extra, c.linkage, c.linkage)
		switch {
		case strings.Contains(c.name, "another type"):
			text = strings.Replace(text, call, otherType, 1)
		case c.indirect:
			text = strings.Replace(text, call, indirect, 1)
		}
		m, err := parseCutModule(text)
		if err != nil {
			t.Fatal(err)
		}
		p, reason := planCut(m, func(n string) bool { return c.native || (n != "over" && n != "vt") })
		if c.reason != "" || reason != "" {
			if c.reason == "" || !strings.Contains(reason, c.reason) {
				t.Errorf("%s: reason %q, want %q", c.name, reason, c.reason)
			}
			continue
		}
		var got []string
		for _, k := range []string{"@over", "@vt"} {
			if p.full[k] {
				got = append(got, k)
			}
		}
		if strings.Join(got, " ") != c.kept {
			t.Errorf("%s: kept in full %v, want %q", c.name, got, c.kept)
		}
		text, _ = cutText(m, p)
		for _, k := range []string{"@over", "@vt"} {
			if p.full[k] && (strings.Contains(text, "linkonce_odr dso_local double "+k) || strings.Contains(text, k+" = linkonce_odr")) {
				t.Errorf("%s: %s keeps its linkonce linkage in the cut:\n%s", c.name, k, text)
			}
		}
	}
}
