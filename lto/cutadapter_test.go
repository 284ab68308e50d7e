package lto

import (
	"strings"
	"testing"
)

// adapterModule is a C++ client's module: an internal function calls the
// entry symbol X (the markers loaded, as clang writes them), main calls it.
// call is the call's lines, extra more module text.
func adapterModule(call string, extra string) string {
	return `target triple = "x86_64-pc-linux-gnu"

@enzyme_dup = external global i32, align 4
@enzyme_const = external global i32, align 4

define dso_local double @_Z1fPdi(double* %x, i32 %n) {
  %1 = load double, double* %x, align 8
  ret double %1
}

define dso_local double @_Z1gPdi(double* %x, i32 %n) {
  %1 = load double, double* %x, align 8
  %2 = fmul double %1, %1
  ret double %2
}

define internal double @_ZL1hPdi(double* %x, i32 %n) {
  %1 = load double, double* %x, align 8
  ret double %1
}

define internal void @_ZL4gradPdS_(double* noundef %x, double* noundef %dx) {
  %1 = load i32, i32* @enzyme_dup, align 4, !tbaa !5
  %2 = load i32, i32* @enzyme_const, align 4, !tbaa !5
` + call + `
  ret void
}

define dso_local i32 @main() {
  %x = alloca double, align 8
  %dx = alloca double, align 8
  call void @_ZL4gradPdS_(double* %x, double* %dx)
  ret i32 0
}
` + extra + `
declare void @_Z17__enzyme_autodiffIvJiPdS0_iiEET_PvDpT0_(i8* noundef, i32 noundef, double* noundef, double* noundef, i32 noundef, i32 noundef)
`
}

const (
	adapterX      = "_Z17__enzyme_autodiffIvJiPdS0_iiEET_PvDpT0_"
	entryCallLine = `  call void @` + adapterX + `(i8* noundef bitcast (double (double*, i32)* @_Z1fPdi to i8*), i32 noundef %1, double* noundef %x, double* noundef %dx, i32 noundef %2, i32 noundef 3)`
)

func adapted(t *testing.T, text string) (*cutModule, map[string]string) {
	t.Helper()
	m, err := parseCutModule(text)
	if err != nil {
		t.Fatal(err)
	}
	names, err := adaptEntries(m, func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	return m, names
}

// One call: the adapter passes its parameters where the call passes
// values, and writes in the function, the markers and the constant; the
// cut owns the adapter alone, not the caller or main.
func TestAdaptEntries(t *testing.T) {
	t.Parallel()
	m, names := adapted(t, adapterModule(entryCallLine, ""))
	if names["gozyme.entry.0"] != adapterX || len(names) != 1 {
		t.Fatalf("adapters %v", names)
	}
	a := m.ents["@gozyme.entry.0"]
	text := strings.Join(m.lines[a.start:a.end+1], "\n")
	for _, want := range []string{
		"define void @gozyme.entry.0(i8* noundef %p0, i32 noundef %p1, double* noundef %p2, double* noundef %p3, i32 noundef %p4, i32 noundef %p5) {",
		"%m0.1 = load i32, i32* @enzyme_dup\n",
		"call void @" + adapterX + "(i8* noundef bitcast (double (double*, i32)* @_Z1fPdi to i8*), i32 noundef %m0.1, double* noundef %p2, double* noundef %p3, i32 noundef %m0.4, i32 noundef 3)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the adapter lacks %q:\n%s", want, text)
		}
	}
	if m.ents["@_ZL4gradPdS_"].enzyme {
		t.Error("the caller still counts as a root")
	}
	p, reason := planCut(m, func(string) bool { return true })
	if reason != "" {
		t.Fatal(reason)
	}
	if got := keys(p.owned); got != "@gozyme.entry.0" {
		t.Errorf("owned %s", got)
	}
	if p.keep["@main"] || p.keep["@_ZL4gradPdS_"] || !p.full["@_Z1fPdi"] {
		t.Errorf("kept %s", keys(p.keep))
	}
}

// Calls of two functions through one symbol: the adapter compares the
// first argument with each function's address; a position one call passes
// as a constant and the other as a value is a parameter.
func TestAdaptEntriesDispatch(t *testing.T) {
	t.Parallel()
	second := "\n" + strings.ReplaceAll(strings.ReplaceAll(entryCallLine, "@_Z1fPdi", "@_Z1gPdi"), "i32 noundef 3)", "i32 noundef 4)") +
		"\n" + strings.ReplaceAll(entryCallLine, "i32 noundef 3)", "i32 noundef %n)")
	m, names := adapted(t, strings.Replace(adapterModule(entryCallLine+second, ""), "@_ZL4gradPdS_(double* noundef %x, double* noundef %dx)", "@_ZL4gradPdS_(double* noundef %x, double* noundef %dx, i32 %n)", 1))
	if len(names) != 1 {
		t.Fatalf("adapters %v", names)
	}
	a := m.ents["@gozyme.entry.0"]
	text := strings.Join(m.lines[a.start:a.end+1], "\n")
	for _, want := range []string{
		"%is0 = icmp eq i8* %p0, bitcast (double (double*, i32)* @_Z1fPdi to i8*)",
		"%is1 = icmp eq i8* %p0, bitcast (double (double*, i32)* @_Z1gPdi to i8*)",
		"call void @llvm.trap()",
		"i32 noundef %m0.4, i32 noundef %p5)",
		"i32 noundef %m1.4, i32 noundef 4)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the adapter lacks %q:\n%s", want, text)
		}
	}
	if m.ents["@llvm.trap"] == nil {
		t.Error("llvm.trap is not declared")
	}
}

// Where an adapter might not mean what the calls mean, the callers stay
// roots (owned, as without adapters).
func TestAdaptEntriesRefuses(t *testing.T) {
	t.Parallel()
	swapped := strings.NewReplacer("i32 noundef %1,", "i32 noundef %2,", "i32 noundef %2,", "i32 noundef %1,").Replace(entryCallLine)
	internal := strings.ReplaceAll(entryCallLine, "@_Z1fPdi", "@_ZL1hPdi")
	variadic := `declare double @__enzyme_autodiff(i8* noundef, ...)
define dso_local void @v(double* %x, double %a) {
  %1 = load i32, i32* @enzyme_dup, align 4
  %2 = call double (i8*, ...) @__enzyme_autodiff(i8* noundef bitcast (double (double*, i32)* @_Z1fPdi to i8*), i32 noundef %1, double* noundef %x, double* noundef %x, i32 noundef 3)
  %3 = call double (i8*, ...) @__enzyme_autodiff(i8* noundef bitcast (double (double*, i32)* @_Z1fPdi to i8*), i32 noundef %1, double* noundef %x, double* noundef %x, i64 noundef 3)
  ret void
}`
	widths := `@enzyme_width = external global i32, align 4
declare void @__enzyme_fwddiff(i8* noundef, ...)
define dso_local void @w(double* %x, double* %dx) {
  %1 = load i32, i32* @enzyme_width, align 4
  call void (i8*, ...) @__enzyme_fwddiff(i8* noundef bitcast (double (double*, i32)* @_Z1fPdi to i8*), i32 noundef %1, i32 noundef 2, double* noundef %x, double* noundef %dx)
  call void (i8*, ...) @__enzyme_fwddiff(i8* noundef bitcast (double (double*, i32)* @_Z1fPdi to i8*), i32 noundef %1, i32 noundef 3, double* noundef %x, double* noundef %dx)
  ret void
}`
	for _, c := range []struct{ name, call, extra, entry, caller string }{
		{"the activity differs between calls", entryCallLine + "\n" + swapped, "", adapterX, "@_ZL4gradPdS_"},
		{"two functions, one internal", entryCallLine + "\n" + internal, "", adapterX, "@_ZL4gradPdS_"},
		{"a marker through a local variable", "  %a = alloca i32, align 4\n  store i32 %1, i32* %a, align 4\n  %b = load i32, i32* %a, align 4\n" +
			strings.Replace(entryCallLine, "i32 noundef %1,", "i32 noundef %b,", 1), "", adapterX, "@_ZL4gradPdS_"},
		{"the entry's address stored", entryCallLine, "@keep = global i8* bitcast (void (i8*, i32, double*, double*, i32, i32)* @" + adapterX + " to i8*)\n", adapterX, "@_ZL4gradPdS_"},
		{"a variadic entry with two argument lists", entryCallLine, variadic, "__enzyme_autodiff", "@v"},
		{"two widths after enzyme_width", entryCallLine, widths, "__enzyme_fwddiff", "@w"},
		{"the function passed as a value", strings.Replace(entryCallLine, "i8* noundef bitcast (double (double*, i32)* @_Z1fPdi to i8*)", "i8* noundef %fp", 1), "", adapterX, "@_ZL4gradPdS_"},
	} {
		m, names := adapted(t, adapterModule(c.call, c.extra))
		for _, entry := range names {
			if entry == c.entry {
				t.Errorf("%s: %s has an adapter", c.name, entry)
			}
		}
		if !m.ents[c.caller].enzyme {
			t.Errorf("%s: the caller no longer counts as a root", c.name)
		}
	}
	// No adapter where another group's native code calls the symbol.
	m, err := parseCutModule(adapterModule(entryCallLine, ""))
	if err != nil {
		t.Fatal(err)
	}
	if names, err := adaptEntries(m, func(string) bool { return false }); err != nil || len(names) != 0 {
		t.Errorf("adapters %v (%v) for a symbol that is not the group's alone", names, err)
	}
}

// trimText gives the adapter its entry's name, drops the entry's
// declaration, and writes no trapping stub for it.
func TestTrimTextAdapter(t *testing.T) {
	t.Parallel()
	text := "declare void @" + adapterX + "(i8*)\n" +
		"define void @gozyme.entry.0(i8* %p0) {\n  call void @grad(i8* %p0)\n  ret void\n}\n"
	var out strings.Builder
	if _, err := trimText(&out, strings.NewReader(text), nil, func(string) bool { return false }, []string{adapterX, "enzyme_dup"}, map[string]string{"gozyme.entry.0": adapterX}); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.Contains(got, "define void @"+adapterX+"(i8* %p0) {") || strings.Contains(got, "declare void @"+adapterX) ||
		strings.Contains(got, "gozyme.entry.0") || strings.Count(got, "@"+adapterX) != 1 {
		t.Errorf("trimmed:\n%s", got)
	}
}

// An entry symbol may have an adapter where only the group's members call
// it, the symbols of every input were read, and the linker folds no
// identical functions (the adapter's dispatch compares their addresses).
func TestAdaptableEntries(t *testing.T) {
	t.Parallel()
	a, b := &Input{Origin: "a.o"}, &Input{Origin: "b.o"}
	grp := &rewriteGroup{members: []*Input{a}}
	stubs := []string{adapterX, "enzyme_dup"}
	for _, c := range []struct {
		name string
		view *symbolView
		want bool
	}{
		{"the group's alone", &symbolView{entryUsers: map[string][]*Input{adapterX: {a}}}, true},
		{"another group calls it", &symbolView{entryUsers: map[string][]*Input{adapterX: {a, b}}}, false},
		{"an input unread", &symbolView{entryUsers: map[string][]*Input{adapterX: {a}}, entryUnknown: true}, false},
		{"identical code folding", &symbolView{entryUsers: map[string][]*Input{adapterX: {a}}, rules: symbolRules{icf: true}}, false},
	} {
		got := adaptableEntries(grp, c.view, stubs)
		if got[adapterX] != c.want || got["enzyme_dup"] {
			t.Errorf("%s: adaptable %v, want %s: %v", c.name, got, adapterX, c.want)
		}
	}
}
