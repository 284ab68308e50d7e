package preopt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/toolchains"
)

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

// TestReview6Fuse: of testdata/review6fuse.c's functions with adjacent
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
func TestReview6Fuse(t *testing.T) {
	fusable := "[chain const_call ok_constants ok_control ok_misc restrict_ro sj vla]"
	for _, flags := range [][]string{nil, {"-g"}} {
		if got := fmt.Sprint(fusedFuncs(t, "review6fuse", flags...)); got != fusable {
			t.Errorf("%v: FuseLoops fused in %s, want %s", flags, got, fusable)
		}
	}
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join("testdata", "review6fuse.c")
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
		bc := frontendBitcode(t, dir, "review6fuse", level[:1], flags...)
		out := filepath.Join(dir, "opt"+level+".bc")
		if err := Optimize(ctx, bc, out, level[:1], nil); err != nil {
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

// TestReview6FusedGradient: testdata/review6grad.c's gradients through
// fused loops (GMM's pair with a branch and sqrt, a pair in a triangular
// nest, a chain of three in a loop that overwrites x) against central
// differences at -O1..-O3.
func TestReview6FusedGradient(t *testing.T) {
	if got, want := fmt.Sprint(fusedFuncs(t, "review6grad", "-fno-math-errno")), "[chain3 gmm trinest]"; got != want {
		t.Errorf("FuseLoops fused in %s, want %s", got, want)
	}
	for _, level := range []string{"1", "2", "3"} {
		t.Run("O"+level, func(t *testing.T) {
			m := optimizedModule(t, t.TempDir(), "review6grad", level)
			if got := runDifferentiated(t, m, level); !strings.Contains(got, "failures 0") {
				t.Errorf("-O%s: %s", level, got)
			}
		})
	}
}
