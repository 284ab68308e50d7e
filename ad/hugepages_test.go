package ad

import (
	"strings"
	"testing"
)

// TestHugePageRecords: a combined gradient's record buffer asks for huge
// pages once it reaches 2 MiB (hugepages.go), through
// __gozyme_tape_advise, which the gradient differentiated again (forward
// over reverse) passes as inactive; gradients and Hessian-vector products
// against central differences at every level (testdata/huge_records.c),
// leak-checked.
func TestHugePageRecords(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "huge_records.c")
	m := preADModuleC(t, src, "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	if !hugePageAdvice(m.TargetTriple) {
		t.Skipf("no huge-page advice on %s", m.TargetTriple)
	}
	advised := false
	for _, f := range m.Funcs {
		if strings.HasPrefix(f.Name(), "__gozyme_") && strings.Contains(f.Name(), "wave") && calleesOf(f)["__gozyme_tape_advise"] {
			advised = true
		}
	}
	if !advised {
		t.Error("wave's gradient does not advise its record buffer")
	}
	for _, o := range optLevels {
		o := o
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			if out := run(t, buildC(t, src, o)); !strings.Contains(out, "OK") {
				t.Fatal(out)
			}
		})
	}
	t.Run("leaks", func(t *testing.T) {
		t.Parallel()
		runLeakChecked(t, buildC(t, src, "2"))
	})
}

// TestHugePageAdviceTargets: the advice's targets are Linux on the
// architectures whose MADV_HUGEPAGE is 14.
func TestHugePageAdviceTargets(t *testing.T) {
	for triple, want := range map[string]bool{
		"x86_64-pc-linux-gnu":       true,
		"x86_64-unknown-linux-gnu":  true,
		"aarch64-unknown-linux-gnu": true,
		"x86_64-apple-macosx12.0.0": false,
		"x86_64-pc-windows-msvc":    false,
		"mips64-unknown-linux-gnu":  false,
		"":                          false,
	} {
		if got := hugePageAdvice(triple); got != want {
			t.Errorf("hugePageAdvice(%q) = %v, want %v", triple, got, want)
		}
	}
}
