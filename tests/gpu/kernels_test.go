package gpu

import (
	"regexp"
	"strings"
	"testing"
)

// count is the number of matches of pattern in text.
func count(text, pattern string) int {
	return len(regexp.MustCompile(pattern).FindAllStringIndex(text, -1))
}

// function returns the text of the definition of the function whose name
// starts with prefix.
func function(t *testing.T, text, prefix string) string {
	t.Helper()
	i := strings.Index(text, "define internal void @"+prefix)
	if i < 0 {
		i = strings.Index(text, "@"+prefix)
		t.Fatalf("no function %s in the differentiated module", prefix)
	}
	j := strings.Index(text[i:], "\n}\n")
	return text[i : i+j]
}

func TestDaxpy(t *testing.T) {
	lib := libdevice(t)
	b := buildCUDA(t, "daxpy", []string{"GOZYME_LIBDEVICE=" + lib})
	ir := b.differentiated(t)
	g := function(t, ir, "__gozyme_grad__Z4axpyIdE")
	// dx[i]: x may alias a, which every thread reads: atomic. da[0]: the
	// same address in every thread: summed over the warp, then atomic.
	if n := count(g, `atomicrmw fadd`); n != 1 {
		t.Errorf("want 1 atomicrmw in the double gradient, found %d:\n%s", n, g)
	}
	if !strings.Contains(g, "@__gozyme_gpu_add_uniform_f64(double* %1,") {
		t.Errorf("da[0] is not added by the warp sum:\n%s", g)
	}
	if !strings.Contains(g, "call double @__nv_cos(") {
		t.Errorf("sin's derivative does not call libdevice's cos:\n%s", g)
	}
	if f := function(t, ir, "__gozyme_fwd__Z4axpyIdE"); strings.Contains(f, "atomicrmw") {
		t.Errorf("forward mode needs no atomics:\n%s", f)
	}
	ptx := b.ptx(t)
	for _, want := range []string{".entry _Z8gradientIdE", ".entry _Z7tangentIfE", "atom.global.add.f64", "atom.global.add.f32", "shfl.sync.bfly.b32", "activemask.b32"} {
		if !strings.Contains(ptx, want) {
			t.Errorf("the PTX has no %q", want)
		}
	}
	if !strings.Contains(b.stderr, "caches 0 bytes per thread") {
		t.Errorf("no cache report:\n%s", b.stderr)
	}
	runChecks(t, emulate(t, b))
}
