package irutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lliExit assembles IR text as dir/name.bc and runs it with lli-14,
// returning its exit status (skipping the test without LLVM's tools).
func lliExit(t *testing.T, dir, name, text string) int {
	t.Helper()
	llvmAs, err := exec.LookPath("llvm-as-14")
	if err != nil {
		t.Skip("llvm-as-14 not installed")
	}
	lli, err := exec.LookPath("lli-14")
	if err != nil {
		t.Skip("lli-14 not installed")
	}
	ll := filepath.Join(dir, name+".ll")
	if err := os.WriteFile(ll, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(llvmAs, ll, "-o", filepath.Join(dir, name+".bc")).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s\n%s", name, err, msg, text)
	}
	err = exec.Command(lli, filepath.Join(dir, name+".bc")).Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// chain returns n instructions accumulating into %<p>.<n-1> from %<start>.
func chain(p, start string, n int) string {
	var b strings.Builder
	prev := start
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  %%%s.%d = fadd double %s, 1.000000e+00\n", p, i, prev)
		prev = fmt.Sprintf("%%%s.%d", p, i)
	}
	return b.String()
}

// TestSplitLongBlocks: long blocks are cut into pieces; the phis that name
// a cut block as predecessor name its last piece; an entry block without a
// label (numbered after the unnamed parameters) keeps its allocas together;
// the result is valid IR that computes the same (run through lli).
func TestSplitLongBlocks(t *testing.T) {
	src := `define double @f(double %0, i1 %1) {
  %a = alloca double
  %b = alloca double
  store double %0, double* %a
` + chain("x", "%0", 30) + `  br i1 %1, label %long, label %short

long:                                             ; preds = %2
` + chain("y", "%x.29", 25) + `  br label %join

short:                                            ; preds = %2
  br label %join

join:                                             ; preds = %short, %long
  %p = phi double [ %y.24, %long ], [ %x.29, %short ]
  %q = phi double [ 1.000000e+00, %2 ], [ 2.000000e+00, %2 ]
  ret double %p
}

define double @g(double %v) {
entry:
` + chain("z", "%v", 22) + `  ret double %z.21
}

define i32 @main() {
  %r = call double @f(double 1.000000e+00, i1 true)
  %s = call double @f(double 1.000000e+00, i1 false)
  %t = call double @g(double 0.000000e+00)
  %u = fadd double %r, %s
  %w = fadd double %u, %t
  %i = fptosi double %w to i32
  ret i32 %i
}
`
	// The entry of @f is %2; the %q phi is not valid IR (its block has no
	// edge from %2) and is taken out below, after checking its renaming.
	out, n, err := SplitLongBlocks(src, 20, 10)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("cut %d blocks, want 3 (f's entry and long, g's entry)\n%s", n, out)
	}
	if !strings.Contains(out, "%p = phi double [ %y.24, %gozyme.split.") || strings.Contains(out, "%y.24, %long ]") {
		t.Errorf("the phi still names the cut block %%long:\n%s", out)
	}
	if strings.Contains(out, "1.000000e+00, %2 ]") {
		t.Errorf("the phi still names the cut entry block %%2:\n%s", out)
	}
	if i := strings.Index(out, "switch"); i < strings.Index(out, "store double %0") {
		t.Errorf("cut among the entry block's allocas:\n%s", out)
	}
	valid := func(text string) string {
		var keep []string
		for _, l := range strings.Split(text, "\n") {
			if !strings.Contains(l, "%q = phi") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	dir := t.TempDir()
	exit := func(name, text string) int { return lliExit(t, dir, name, text) }
	want, got := exit("orig", valid(src)), exit("split", valid(out))
	if want != got || want == 0 {
		t.Errorf("split program exits %d, the original %d", got, want)
	}
	if same, n, _ := SplitLongBlocks(src, 100, 10); n != 0 || same != src {
		t.Errorf("no block over the limit: %d cut, text changed %v", n, same != src)
	}
}

// TestSplitKeepsMusttail: a musttail call stays right before its return.
func TestSplitKeepsMusttail(t *testing.T) {
	src := "define double @f(double %v) {\nentry:\n" + chain("z", "%v", 10) +
		"  %r = musttail call double @f(double %z.9)\n  ret double %r\n}\n"
	out, n, err := SplitLongBlocks(src, 11, 11)
	if err != nil || n != 0 {
		t.Fatalf("cut %d blocks (err %v): nothing may be cut\n%s", n, err, out)
	}
	out, n, err = SplitLongBlocks(src, 5, 5)
	if err != nil || n != 1 {
		t.Fatalf("cut %d blocks (err %v), want 1\n%s", n, err, out)
	}
	if strings.Contains(out, "musttail call double @f(double %z.9)\n  switch") {
		t.Errorf("cut between musttail and ret:\n%s", out)
	}
}

// TestStripMarkedAttributes: only groups holding the marker lose the words.
func TestStripMarkedAttributes(t *testing.T) {
	src := "attributes #0 = { noimplicitfloat nounwind }\nattributes #1 = { noimplicitfloat noinline \"gozyme-huge\" \"x\"=\"y\" }\n"
	got := StripMarkedAttributes(src, `"gozyme-huge"`, "noimplicitfloat")
	want := "attributes #0 = { noimplicitfloat nounwind }\nattributes #1 = { noinline \"x\"=\"y\" }\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestSplitKeepsMultiLineInstructions: a switch's cases (lines that
// continue an instruction) are never taken for instructions to cut before.
func TestSplitKeepsMultiLineInstructions(t *testing.T) {
	src := "define i32 @f(i32 %k, double %v) {\nentry:\n" + chain("z", "%v", 10) +
		"  switch i32 %k, label %a [\n    i32 0, label %b\n    i32 1, label %b\n    i32 2, label %b\n  ]\n\na:\n  ret i32 0\n\nb:\n  ret i32 1\n}\n"
	out, n, err := SplitLongBlocks(src, 10, 10)
	if err != nil || n != 0 || out != src {
		t.Fatalf("cut %d blocks (err %v): nothing may be cut\n%s", n, err, out)
	}
}

// TestSplitKeepsEntryAllocas: no cut in the entry block before its last
// alloca, even one that follows many instructions.
func TestSplitKeepsEntryAllocas(t *testing.T) {
	src := "define double @f(double %v) {\nentry:\n" + chain("z", "%v", 15) +
		"  %slot = alloca double\n  store double %z.14, double* %slot\n" + chain("w", "%z.14", 15) + "  ret double %w.14\n}\n"
	out, n, err := SplitLongBlocks(src, 10, 5)
	if err != nil || n != 1 {
		t.Fatalf("cut %d blocks (err %v), want 1\n%s", n, err, out)
	}
	if strings.Index(out, "switch") < strings.Index(out, "alloca") {
		t.Errorf("cut before the entry block's alloca:\n%s", out)
	}
}

// TestLargestFunction: instructions of the largest accepted function.
func TestLargestFunction(t *testing.T) {
	src := "define double @f(double %v) {\nentry:\n" + chain("z", "%v", 10) + "  ret double %z.9\n}\n\n" +
		"define double @g(double %v) {\nentry:\n" + chain("z", "%v", 20) + "  ret double %z.19\n}\n"
	if n := LargestFunction(src, nil); n != 21 {
		t.Errorf("largest: %d instructions, want 21", n)
	}
	if n := LargestFunction(src, func(h string) bool { return strings.Contains(h, "@f") }); n != 11 {
		t.Errorf("largest of @f: %d instructions, want 11", n)
	}
}
