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
	bc, err := bitcodeSymbols(context.Background(), t.TempDir(), inputs)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := groupNames(mustGroup(t, inputs, roots, bc)), "a.o:a.o,other.o"; got != want {
		t.Errorf("with bitcode symbols: groups %v, want %v", got, want)
	}
}
