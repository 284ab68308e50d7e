package preopt

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad"
	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// normModule compiles testdata/norm.c and testdata/mag.c to the frontend's
// bitcode (what gozyme-cc embeds), links them, and runs Optimize at -O2.
func normModule(t *testing.T) *ir.Module {
	t.Helper()
	if _, err := toolchains.Tool("clang"); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	var bcs []string
	for _, src := range []string{"norm", "mag"} {
		bc := filepath.Join(dir, src+".bc")
		if _, err := toolchains.Run(ctx, "clang", "-c", "-emit-llvm", "-O2", "-fno-math-errno", "-Xclang", "-disable-llvm-passes",
			filepath.Join("testdata", src+".c"), "-o", bc); err != nil {
			t.Fatal(err)
		}
		bcs = append(bcs, bc)
	}
	linked := filepath.Join(dir, "linked.bc")
	if _, err := toolchains.Run(ctx, "llvm-link", append([]string{"-o", linked}, bcs...)...); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "optimized.ll")
	if err := Optimize(ctx, linked, out, "2", Options{}); err != nil {
		t.Fatal(err)
	}
	m, err := irutil.LoadFile(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestNormHoisted checks the optimized IR: mag's work (inlined or not) is
// outside the loop that writes out[i], so norm is O(n).
func TestNormHoisted(t *testing.T) {
	m := normModule(t)
	var norm *ir.Func
	for _, f := range m.Funcs {
		if f.Name() == "norm" {
			norm = f
		}
	}
	if norm == nil {
		t.Fatal("no @norm in the optimized module")
	}
	cfg, err := irutil.NewCFG(norm)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, b := range norm.Blocks {
		for _, inst := range b.Insts {
			c, ok := inst.(*ir.InstCall)
			if !ok {
				continue
			}
			callee, _ := irutil.StripCasts(c.Callee).(*ir.Func)
			if callee == nil || (callee.Name() != "mag" && callee.Name() != "llvm.sqrt.f64") {
				continue
			}
			found = true
			if l := cfg.LoopOf[b]; l != nil {
				t.Errorf("%s in block %s is inside the loop headed by %s: mag was not hoisted", callee.Name(), b.Ident(), l.Header.Ident())
			}
		}
	}
	if !found {
		t.Fatal("neither a call to mag nor its sqrt in the optimized @norm")
	}
}

// TestNormGradient differentiates the optimized module and checks the
// gradient against the analytic one (testdata/norm.c prints the error).
func TestNormGradient(t *testing.T) {
	out := runDifferentiated(t, normModule(t), "2")
	rel, err := strconv.ParseFloat(strings.TrimSpace(out), 64)
	if err != nil || rel > 1e-12 {
		t.Errorf("norm gradient: largest relative error %s, want <= 1e-12", out)
	}
}

// runDifferentiated differentiates m, compiles it at -O<level>, runs it
// and returns what it printed.
func runDifferentiated(t *testing.T, m *ir.Module, level string) string {
	t.Helper()
	if _, err := ad.Differentiate(m, ad.Options{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ll := filepath.Join(dir, "ad.ll")
	if err := irutil.WriteText(m, ll); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "prog")
	if _, err := toolchains.Run(context.Background(), "clang", "-O"+level, "-Wno-override-module", ll, "-o", exe, "-lm"); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return string(out)
}

// TestNoRuntimeUnroll: a loop whose trip count is only known at run time (a
// recurrence through sin, which does not vectorize) stays one loop before
// AD, not an unrolled loop plus a remainder loop (noRuntimeUnroll).
func TestNoRuntimeUnroll(t *testing.T) {
	if _, err := toolchains.Tool("clang"); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	src, bc, out := filepath.Join(dir, "rec.c"), filepath.Join(dir, "rec.bc"), filepath.Join(dir, "opt.bc")
	code := "#include <math.h>\ndouble rec(double x, const double *w, int n) {\n" +
		"\tfor (int i = 0; i < n; i++) x = sin(x) * w[i] + x;\n\treturn x;\n}\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := toolchains.Run(ctx, "clang", "-c", "-emit-llvm", "-O2", "-fno-math-errno", "-Xclang", "-disable-llvm-passes", src, "-o", bc); err != nil {
		t.Fatal(err)
	}
	if err := Optimize(ctx, bc, out, "2", Options{}); err != nil {
		t.Fatal(err)
	}
	m, err := irutil.LoadBitcode(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Funcs {
		if f.Name() != "rec" {
			continue
		}
		cfg, err := irutil.NewCFG(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Loops) != 1 {
			t.Errorf("@rec has %d loops after the pre-AD pipeline, want 1 (not runtime-unrolled)", len(cfg.Loops))
		}
		return
	}
	t.Fatal("no @rec in the optimized module")
}

// vectorLoops counts f's loops that hold an instruction of vector type in
// a block of their own (not of a loop inside).
func vectorLoops(t *testing.T, f *ir.Func) int {
	t.Helper()
	cfg, err := irutil.NewCFG(f)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range cfg.Loops {
		vec := false
		for b := range l.Blocks {
			if cfg.LoopOf[b] != l {
				continue
			}
			for _, inst := range b.Insts {
				if v, ok := inst.(value.Value); ok {
					_, isVec := v.Type().(*types.VectorType)
					vec = vec || isVec
				}
			}
		}
		if vec {
			n++
		}
	}
	return n
}

// vectorizedIn reads the loop vectorizer's optimization record (YAML)
// and counts the loops it vectorized per function.
func vectorizedIn(t *testing.T, record string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, doc := range strings.Split(string(data), "\n---") {
		if !strings.Contains(doc, "!Passed") || !strings.Contains(doc, "Pass:            loop-vectorize") {
			continue
		}
		for _, line := range strings.Split(doc, "\n") {
			if f, ok := strings.CutPrefix(strings.TrimSpace(line), "Function:"); ok {
				n[strings.Trim(strings.TrimSpace(f), "'")]++
			}
		}
	}
	return n
}

// TestVectorizeAfterAD (noVectorize and ad's loop hints): before AD,
// testdata/vecgrad.c's rows and flat keep their loops scalar but the one
// rows's pragma asks to vectorize. After AD the optimizer vectorizes the
// primal's loops (rows and flat, called on their own) and the gradient's
// outermost loops (flat's, in grad_flat); in rows's gradient (grad_rows)
// only the long versions of the forward copies of loops inside loops
// (ad's loopversion.go) may be, the pragma's loop came vectorized. The gradients
// match central differences for rows of 1 to 37 (vector loops with and
// without a remainder).
func TestVectorizeAfterAD(t *testing.T) {
	ctx := context.Background()
	for _, level := range []string{"2", "3"} {
		t.Run("O"+level, func(t *testing.T) {
			dir := t.TempDir()
			m := optimizedModule(t, dir, "vecgrad", level)
			want := map[string]int{"rows": 1, "flat": 0}
			for _, f := range m.Funcs {
				if n, ok := want[f.Name()]; ok {
					delete(want, f.Name())
					if got := vectorLoops(t, f); got != n {
						t.Errorf("before AD, @%s has %d loops with vector instructions, want %d", f.Name(), got, n)
					}
				}
			}
			if len(want) > 0 {
				t.Fatalf("not in the optimized module: %v", want)
			}
			if _, err := ad.Differentiate(m, ad.Options{}); err != nil {
				t.Fatal(err)
			}
			ll := filepath.Join(dir, "ad.ll")
			if err := irutil.WriteText(m, ll); err != nil {
				t.Fatal(err)
			}
			exe, record := filepath.Join(dir, "prog"), filepath.Join(dir, "remarks.yaml")
			if _, err := toolchains.Run(ctx, "clang", "-O"+level, "-Wno-override-module", "-fsave-optimization-record",
				"-foptimization-record-file="+record, "-foptimization-record-passes=loop-vectorize", ll, "-o", exe, "-lm"); err != nil {
				t.Fatal(err)
			}
			vec := vectorizedIn(t, record)
			if vec["rows"] < 1 || vec["flat"] < 1 || vec["grad_flat"] < 1 {
				t.Errorf("after AD, the vectorizer took %d loops of @rows, %d of @flat and %d of @grad_flat, want at least 1 of each (%v)",
					vec["rows"], vec["flat"], vec["grad_flat"], vec)
			}
			got, err := exec.Command(exe).CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, got)
			}
			rel, err := strconv.ParseFloat(strings.TrimSpace(string(got)), 64)
			if err != nil || rel > 1e-6 {
				t.Errorf("gradients: largest error against central differences %s, want <= 1e-6", got)
			}
		})
	}
}
