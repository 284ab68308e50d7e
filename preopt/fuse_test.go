package preopt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
)

// frontendBitcode compiles testdata/name.c as gozyme-cc embeds it (clang
// at -O<level>, no LLVM passes; no a*b+c contracted, so that every level
// rounds as -O0 does), with further clang flags, into dir and returns the
// bitcode's path.
func frontendBitcode(t *testing.T, dir, name, level string, flags ...string) string {
	t.Helper()
	if _, err := toolchains.Tool("clang"); err != nil {
		t.Skip(err)
	}
	bc := filepath.Join(dir, name+".bc")
	args := append([]string{"-c", "-emit-llvm", "-O" + level, "-fno-math-errno", "-ffp-contract=off",
		"-Xclang", "-disable-llvm-passes", filepath.Join("testdata", name+".c"), "-o", bc}, flags...)
	if _, err := toolchains.Run(context.Background(), "clang", args...); err != nil {
		t.Fatal(err)
	}
	return bc
}

// optimizedModule runs Optimize at -O<level> on testdata/name.c as the
// frontend compiles it (frontendBitcode) in dir and loads the result.
func optimizedModule(t *testing.T, dir, name, level string) *ir.Module {
	t.Helper()
	ctx := context.Background()
	out := filepath.Join(dir, "opt.ll")
	if err := Optimize(ctx, frontendBitcode(t, dir, name, level), out, level, Options{}); err != nil {
		t.Fatal(err)
	}
	m, err := irutil.LoadFile(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// lightModule runs the light pipeline on testdata/name.c (compiled at -O2
// with further clang flags) and parses it.
func lightModule(t *testing.T, name string, flags ...string) *ir.Module {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	bc := frontendBitcode(t, dir, name, "2", flags...)
	lit := filepath.Join(dir, name+".light.ll")
	if _, err := toolchains.Run(ctx, "opt", "-passes="+light, "-S", bc, "-o", lit); err != nil {
		t.Fatal(err)
	}
	m, err := irutil.LoadFile(ctx, lit)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// loopCounts maps each function defined in m to its number of loops.
func loopCounts(t *testing.T, m *ir.Module) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, f := range m.Funcs {
		if len(f.Blocks) == 0 {
			continue
		}
		cfg, err := irutil.NewCFG(f)
		if err != nil {
			t.Fatal(err)
		}
		n[f.Name()] = len(cfg.Loops)
	}
	return n
}

// TestFuseLoopsCases: of testdata/fusecases.c's pairs of adjacent loops,
// FuseLoops fuses GMM's (fused_pair: xc[j] written, then read in the same
// iteration, private buffers) and the same on restrict parameters, and
// leaves alone the pair whose second loop reads xc[j+1], the one through a
// loop-invariant location (LLVM 14's loop-fusion fuses it), the one on two
// pointers that may alias, the one with a shorter second loop, the one
// reading the first loop's array through its escaped address, the one
// whose second loop has a pragma, a memset and a memcpy loop, and the one
// whose second loop uses the first one's counter.
func TestFuseLoopsCases(t *testing.T) {
	m := lightModule(t, "fusecases")
	before := loopCounts(t, m)
	// Each function has a pair of canonical adjacent loops: what decides
	// is legality (trip: the bounds differ), not the loops' shape.
	for _, f := range m.Funcs {
		if len(f.Blocks) == 0 || f.Name() == "main" {
			continue
		}
		cfg, err := irutil.NewCFG(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(adjacentPairs(cfg)) == 0 {
			t.Errorf("@%s: no pair of adjacent canonical loops", f.Name())
		}
	}
	if n := FuseLoops(m); n != 2 {
		t.Errorf("FuseLoops fused %d pairs, want 2", n)
	}
	after := loopCounts(t, m)
	for _, f := range []string{"fused_pair", "fused_restrict", "shifted", "invariant", "params", "trip", "escaped", "pragma_pair", "idioms", "exitvalue"} {
		want := before[f]
		if strings.HasPrefix(f, "fused_") {
			want--
		}
		if before[f] < 2 {
			t.Errorf("@%s has %d loops before fusion, want at least 2", f, before[f])
		}
		if after[f] != want {
			t.Errorf("@%s has %d loops after FuseLoops, want %d (%d before)", f, after[f], want, before[f])
		}
	}
}

// TestFuseLoopsRun runs testdata/fusecases.c optimized by Optimize (fusion
// included) at -O1..-O3 and compares its output with clang -O0's.
func TestFuseLoopsRun(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref")
	if _, err := toolchains.Run(ctx, "clang", "-O0", "-ffp-contract=off", filepath.Join("testdata", "fusecases.c"), "-o", ref); err != nil {
		t.Skip(err)
	}
	want, err := exec.Command(ref).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, want)
	}
	for _, level := range []string{"1", "2", "3"} {
		bc := frontendBitcode(t, dir, "fusecases", level)
		out := filepath.Join(dir, "opt"+level+".bc")
		if err := Optimize(ctx, bc, out, level, Options{}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "opt"+level+".light.fused.ll")); err != nil {
			t.Errorf("-O%s: no fused module: %v", level, err)
		}
		exe := filepath.Join(dir, "prog"+level)
		if _, err := toolchains.Run(ctx, "clang", "-O"+level, out, "-o", exe); err != nil {
			t.Fatal(err)
		}
		got, err := exec.Command(exe).CombinedOutput()
		if err != nil {
			t.Fatalf("-O%s: %v\n%s", level, err, got)
		}
		if string(got) != string(want) {
			t.Errorf("-O%s: fusecases printed\n%s want (clang -O0)\n%s", level, got, want)
		}
	}
}

// TestFusedGradient differentiates testdata/fusegrad.c, whose xc and qx
// loops Optimize fuses, at -O1..-O3 and checks the gradient against
// central differences.
func TestFusedGradient(t *testing.T) {
	for _, level := range []string{"1", "2", "3"} {
		t.Run("O"+level, func(t *testing.T) {
			dir := t.TempDir()
			m := optimizedModule(t, dir, "fusegrad", level)
			if _, err := os.Stat(filepath.Join(dir, "opt.light.fused.ll")); err != nil {
				t.Errorf("no fused module: %v", err)
			}
			got := runDifferentiated(t, m, level)
			rel, err := strconv.ParseFloat(strings.TrimSpace(got), 64)
			if err != nil || rel > 1e-6 {
				t.Errorf("gradient: largest error against central differences %s, want <= 1e-6", got)
			}
		})
	}
}

// secondTestIR: two loops over x with the same iterations, the second
// body reading its own header's test (%c2).
const secondTestIR = `
define void @f(double* noalias %x, double* noalias %y, i64 %n) {
entry:
  br label %h1
h1:
  %i = phi i64 [ 0, %entry ], [ %i1, %l1 ]
  %c1 = icmp slt i64 %i, %n
  br i1 %c1, label %b1, label %h2
b1:
  %p = getelementptr inbounds double, double* %x, i64 %i
  %v = sitofp i64 %i to double
  store double %v, double* %p
  br label %l1
l1:
  %i1 = add i64 %i, 1
  br label %h1
h2:
  %j = phi i64 [ 0, %h1 ], [ %j1, %l2 ]
  %c2 = icmp slt i64 %j, %n
  br i1 %c2, label %b2, label %exit
b2:
  %q = getelementptr inbounds double, double* %y, i64 %j
  %z = select i1 %c2, double 2.0, double 3.0
  store double %z, double* %q
  br label %l2
l2:
  %j1 = add i64 %j, 1
  br label %h2
exit:
  ret void
}
`

// TestFuseLoopsSecondTest: where the second body reads its header's test,
// the fused loop reads the first's (the same predicate on the same
// counter), and the module passes LLVM's verifier.
func TestFuseLoopsSecondTest(t *testing.T) {
	m, err := irutil.ParseText("second.ll", []byte(secondTestIR))
	if err != nil {
		t.Fatal(err)
	}
	if n := FuseLoops(m); n != 1 {
		t.Fatalf("fused %d pairs, want 1", n)
	}
	ll := filepath.Join(t.TempDir(), "fused.ll")
	if err := irutil.WriteText(m, ll); err != nil {
		t.Fatal(err)
	}
	if out, err := toolchains.Run(context.Background(), "opt", "-passes=verify", "-disable-output", ll); err != nil {
		t.Fatalf("the fused module fails LLVM's verifier: %v\n%s", err, out)
	}
}

// fusedFuncs returns the functions of testdata/name.c's light module
// (built with further clang flags) in which FuseLoops fuses a pair.
func fusedFuncs(t *testing.T, name string, flags ...string) []string {
	t.Helper()
	m := lightModule(t, name, flags...)
	var out []string
	for _, f := range m.Funcs {
		if len(f.Blocks) > 0 && fuseFunc(f) > 0 {
			out = append(out, f.Name())
		}
	}
	sort.Strings(out)
	return out
}

// runOutput runs exe and returns its output and exit status.
func runOutput(t *testing.T, exe string) (string, int) {
	t.Helper()
	out, err := exec.Command(exe).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// TestFuseLoopsLegality: of testdata/fuselegality.c's functions with adjacent
// loops, FuseLoops fuses (with -g too) those it may: a const call, two
// restrict parameters only read, the pairs next to IR llir must write
// back (ok_*), a pair after a setjmp, VLAs, the first two of a chain of
// three; not the third (it reads qx[j+1]), nor rows of one matrix, nor those whose second loop reads what the first writes at
// another element or through another pointer, nor volatile or atomic
// accesses, nor a call to exit, nor loops with != tests (instcombine
// makes them == with the exit on true), breaks or reductions. The program
// prints at -O1..-O3, -Os and -O2 -g (Optimize, fusion included; opt
// verifies the module llir wrote) what clang -O0 prints,
// and exits as it does (exit(3) from inside the first loop of a pair).
func TestFuseLoopsLegality(t *testing.T) {
	fusable := "[chain const_call ok_constants ok_control ok_misc restrict_ro sj vla]"
	for _, flags := range [][]string{nil, {"-g"}} {
		if got := fmt.Sprint(fusedFuncs(t, "fuselegality", flags...)); got != fusable {
			t.Errorf("%v: FuseLoops fused in %s, want %s", flags, got, fusable)
		}
	}
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join("testdata", "fuselegality.c")
	ref := filepath.Join(dir, "ref")
	if _, err := toolchains.Run(ctx, "clang", "-O0", "-ffp-contract=off", src, "-o", ref); err != nil {
		t.Skip(err)
	}
	want, wcode := runOutput(t, ref)
	for _, level := range []string{"1", "2", "3", "s", "2g"} {
		var flags []string
		if level == "2g" {
			flags = []string{"-g"} // llvm.dbg.value of the counters
		}
		bc := frontendBitcode(t, dir, "fuselegality", level[:1], flags...)
		out := filepath.Join(dir, "opt"+level+".bc")
		if err := Optimize(ctx, bc, out, level[:1], Options{}); err != nil {
			t.Fatal(err)
		}
		// opt takes the module llir wrote (Optimize would fall back to
		// the unfused one, silently).
		fused := filepath.Join(dir, "opt"+level+".light.fused.ll")
		if _, err := toolchains.Run(ctx, "opt", "-passes=verify", fused, "-o", os.DevNull); err != nil {
			t.Errorf("-O%s: the fused module: %v", level, err)
		}
		exe := filepath.Join(dir, "prog"+level)
		if _, err := toolchains.Run(ctx, "clang", "-O"+level[:1], out, "-o", exe); err != nil {
			t.Fatal(err)
		}
		got, code := runOutput(t, exe)
		if got != want || code != wcode {
			t.Errorf("-O%s: printed (exit %d)\n%s want (clang -O0, exit %d)\n%s", level, code, got, wcode, want)
		}
	}
}

// TestFusedGradientNests: testdata/fusegradnests.c's gradients through
// fused loops (GMM's pair with a branch and sqrt, a pair in a triangular
// nest, a chain of three in a loop that overwrites x) against central
// differences at -O1..-O3.
func TestFusedGradientNests(t *testing.T) {
	if got, want := fmt.Sprint(fusedFuncs(t, "fusegradnests", "-fno-math-errno")), "[chain3 gmm trinest]"; got != want {
		t.Errorf("FuseLoops fused in %s, want %s", got, want)
	}
	for _, level := range []string{"1", "2", "3"} {
		t.Run("O"+level, func(t *testing.T) {
			m := optimizedModule(t, t.TempDir(), "fusegradnests", level)
			if got := runDifferentiated(t, m, level); !strings.Contains(got, "failures 0") {
				t.Errorf("-O%s: %s", level, got)
			}
		})
	}
}
