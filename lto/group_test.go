package lto

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
)

// loadInputs reads objects as link inputs, in the order given.
func loadInputs(t *testing.T, objs map[string]string, order ...string) []*Input {
	t.Helper()
	var inputs []*Input
	for i, name := range order {
		data, err := os.ReadFile(objs[name])
		if err != nil {
			t.Fatal(err)
		}
		in := &Input{Item: i, Path: objs[name], Origin: name, Data: data}
		if in.Embedded, err = ReadEmbedded(strings.NewReader(string(data)), name); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, in)
	}
	return inputs
}

// mustGroup is groupRoots under the default symbol rules.
func mustGroup(t *testing.T, inputs, roots []*Input, bc map[*Input][]objSym) []*rewriteGroup {
	t.Helper()
	groups, err := groupRoots(inputs, roots, bc, nil)
	if err != nil {
		t.Fatal(err)
	}
	return groups
}

// groupNames describes groups as "anchor:member,member".
func groupNames(groups []*rewriteGroup) string {
	var got []string
	for _, g := range groups {
		var names []string
		for _, m := range g.members {
			names = append(names, m.Origin)
		}
		sort.Strings(names)
		got = append(got, g.anchor.Origin+":"+strings.Join(names, ","))
	}
	return strings.Join(got, " ")
}

// Roots whose code shares nothing are separate groups (differentiated in
// parallel); a root's group holds every bitcode module it reaches, through
// archive members too; modules without bitcode stay out.
func TestGroupRoots(t *testing.T) {
	dir := t.TempDir()
	objs := map[string]string{
		"a.o":     fatCompile(t, dir, "a.o", `double __enzyme_autodiff(void*, ...); double ha(double); double fa(double x){return ha(x)*x;} double ga(double x){return __enzyme_autodiff((void*)fa, x);}`),
		"ha.o":    fatCompile(t, dir, "ha.o", `double hh(double); double ha(double x){return hh(x)+1;}`),
		"hh.o":    fatCompile(t, dir, "hh.o", `double hh(double x){return x*x;}`),
		"b.o":     fatCompile(t, dir, "b.o", `double __enzyme_autodiff(void*, ...); static double fb(double x){return x*x*x;} double gb(double x){return __enzyme_autodiff((void*)fb, x);}`),
		"plain.o": plainCompile(t, dir, "plain.o", `double hb(double x){return x;}`),
	}
	inputs := loadInputs(t, objs, "a.o", "b.o", "ha.o", "hh.o", "plain.o")
	roots, err := rootInputs(inputs)
	if err != nil {
		t.Fatal(err)
	}
	got := groupNames(mustGroup(t, inputs, roots, nil))
	if want := "a.o:a.o,ha.o,hh.o b.o:b.o"; got != want {
		t.Errorf("groups %v, want %v", got, want)
	}
}

// A reference only the bitcode has (the compile's optimizer removed the
// call from the native code; a link at -O0 keeps it) joins the group too.
func TestGroupRootsBitcodeOnlyReferences(t *testing.T) {
	needTool(t, "llvm-nm-14")
	dir := t.TempDir()
	objs := map[string]string{
		"a.o": fatCompile(t, dir, "a.o", `double __enzyme_autodiff(void*, ...); double other(double);
static double blend(double x, int k) { return k ? other(x) : x * x; }
double loss(double x) { return blend(x, 0); }
double grad(double x) { return __enzyme_autodiff((void*)loss, x); }`, "-O2"),
		"other.o": fatCompile(t, dir, "other.o", `double other(double x){return x*x*x;}`, "-O2"),
	}
	inputs := loadInputs(t, objs, "a.o", "other.o")
	syms, err := elfSymbols(inputs[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syms {
		if s.name == "other" {
			t.Fatalf("a.o's native code references 'other'; the test needs it dropped")
		}
	}
	roots, err := rootInputs(inputs)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := groupNames(mustGroup(t, inputs, roots, nil)), "a.o:a.o"; got != want {
		t.Errorf("native symbols only: groups %v, want %v", got, want)
	}
	bc, err := bitcodeSymbols(context.Background(), "", t.TempDir(), inputs)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := groupNames(mustGroup(t, inputs, roots, bc)), "a.o:a.o,other.o"; got != want {
		t.Errorf("with bitcode symbols: groups %v, want %v", got, want)
	}
}

// editsOf describes a group's edits as "member: -discarded ... a>b ...".
func editsOf(g *rewriteGroup) string {
	var out []string
	for _, m := range g.members {
		e := g.edits[m]
		if e.empty() {
			continue
		}
		var parts []string
		for n := range e.discard {
			parts = append(parts, "-"+n)
		}
		for from, to := range e.rename {
			parts = append(parts, from+">"+to)
		}
		sort.Strings(parts)
		out = append(out, m.Origin+": "+strings.Join(parts, " "))
	}
	return strings.Join(out, "; ")
}

// Groups follow the linker's resolution: a weak definition overridden by
// a strong one leaves the caller's module and the strong one's module
// joins (or, without bitcode, stays out and the definition is only
// discarded); --wrap renames the references ld wraps and pulls in the
// wrapper and the wrapped function.
func TestGroupRootsFollowsLinker(t *testing.T) {
	needTool(t, "llvm-nm-14")
	dir := t.TempDir()
	objs := map[string]string{
		"main.o": fatCompile(t, dir, "main.o", `double __enzyme_autodiff(void*, ...);
__attribute__((weak)) double sq(double x) { return x * x; }
double g(double x) { return __enzyme_autodiff((void*)sq, x); }`),
		"strong.o": fatCompile(t, dir, "strong.o", `double sq(double x) { return x * x * x; }`),
		"plain.o":  plainCompile(t, dir, "plain.o", `double sq(double x) { return x * x * x; }`),
		"use.o": fatCompile(t, dir, "use.o", `double __enzyme_autodiff(void*, ...); double cube(double);
double use(double x) { return cube(x) + 1; }
double h(double x) { return __enzyme_autodiff((void*)use, x); }`),
		"cube.o": fatCompile(t, dir, "cube.o", `double cube(double x) { return x * x * x; }`),
		"wrap.o": fatCompile(t, dir, "wrap.o", `double __real_cube(double); double __wrap_cube(double x) { return 2 * __real_cube(x); }`),
	}
	for _, c := range []struct {
		order        []string
		rules        symbolRules
		groups, edit string
	}{
		{[]string{"main.o", "strong.o"}, symbolRules{}, "main.o:main.o,strong.o", "main.o: -sq"},
		{[]string{"strong.o", "main.o"}, symbolRules{}, "strong.o:main.o,strong.o", "main.o: -sq"},
		{[]string{"main.o", "plain.o"}, symbolRules{}, "main.o:main.o", "main.o: -sq"},
		{[]string{"use.o", "cube.o", "wrap.o"}, symbolRules{wrap: map[string]bool{"cube": true}},
			"use.o:cube.o,use.o,wrap.o", "use.o: cube>__wrap_cube; wrap.o: __real_cube>cube"},
		{[]string{"use.o", "cube.o", "wrap.o"}, symbolRules{}, "use.o:cube.o,use.o", ""},
	} {
		inputs := loadInputs(t, objs, c.order...)
		roots, err := rootInputs(inputs)
		if err != nil {
			t.Fatal(err)
		}
		bc, err := bitcodeSymbols(context.Background(), "", t.TempDir(), inputs)
		if err != nil {
			t.Fatal(err)
		}
		groups, err := groupRoots(inputs, roots, bc, resolveSymbols(inputs, c.rules))
		if err != nil {
			t.Fatal(err)
		}
		if got := groupNames(groups); got != c.groups {
			t.Errorf("%v: groups %v, want %v", c.order, got, c.groups)
		}
		if got := editsOf(groups[0]); got != c.edit {
			t.Errorf("%v: edits %q, want %q", c.order, got, c.edit)
		}
	}
}
