package lto

import (
	"os"
	"sort"
	"strings"
	"testing"
)

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
	var inputs []*Input
	for i, name := range []string{"a.o", "b.o", "ha.o", "hh.o", "plain.o"} {
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
	roots, err := rootInputs(inputs)
	if err != nil {
		t.Fatal(err)
	}
	groups := groupRoots(inputs, roots)
	var got []string
	for _, g := range groups {
		var names []string
		for _, m := range g.members {
			names = append(names, m.Origin)
		}
		sort.Strings(names)
		got = append(got, g.anchor.Origin+":"+strings.Join(names, ","))
	}
	want := []string{"a.o:a.o,ha.o,hh.o", "b.o:b.o"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("groups %v, want %v", got, want)
	}
}
