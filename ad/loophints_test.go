package ad

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/metadata"
)

// hintLoops are small loops of the kind the optimizer before AD vectorizes
// with a scalar remainder (small components: centre, scale, a triangular
// product, a squared norm, as in a mixture model's objective), and loops
// with the programmer's pragmas: no unrolling, a vector width and an
// interleave count, no vectorizing.
const hintLoops = loopRunPrelude + `
#include <stdlib.h>
int DIM = 3; /* $DIM where set */
__attribute__((noinline)) double hcomps(double *x, int n) {
	int d = DIM, k = n / d;
	double c[64], y[64], e = 0;
	for (int m = 0; m < k; m++) {
		for (int j = 0; j < d; j++) c[j] = x[m * d + j] - x[j];
		for (int j = 0; j < d; j++) y[j] = x[(m * d + j + 1) % n] * c[j];
		for (int i = 0, li = 0; i < d; i++)
			for (int j = i + 1; j < d; j++) y[j] += x[li++ % n] * c[i];
		double s = 0;
		for (int j = 0; j < d; j++) s += y[j] * y[j];
		e += sin(s);
	}
	return e;
}

__attribute__((noinline)) double hpragma(double *x, int n) {
	double e = 0;
	for (int k = 0; k < 3; k++) {
		double w = cos(x[k]);
#pragma clang loop unroll(disable)
		for (int j = 0; j < n; j++) x[j] = x[j] * w + 0.1;
#pragma clang loop vectorize_width(2) interleave_count(2)
		for (int j = 0; j < n; j++) x[j] = x[j] * x[j] * 0.5 + w;
#pragma clang loop vectorize(disable) unroll_count(3)
		for (int j = 0; j < n; j++) e += x[j] * x[(j + k) % n];
	}
	return e;
}

CALLEE(hcomps)
COPY64(hcomps)
COPY64(hpragma)
COPY64(hcomps_callee)
double __enzyme_fwddiff(void *, ...);
/* FWDRUN(f, n): f's forward-mode derivative in a direction v at a fixed
 * x[n] against the central difference. */
#define FWDRUN(f, n) do { \
		double x[n], xc[n], v[n], xp[n], xm[n], h = 1e-6; \
		for (int i = 0; i < n; i++) x[i] = 0.3 + 0.11 * (i % 7) - 0.02 * (i % 5) * (i % 3), v[i] = 0.5 - 0.1 * (i % 4); \
		for (int i = 0; i < n; i++) xp[i] = x[i] + h * v[i], xm[i] = x[i] - h * v[i]; \
		memcpy(xc, x, sizeof x); \
		double jv = __enzyme_fwddiff((void *)f, enzyme_dup, xc, v, enzyme_const, n); \
		check("fwd " #f, jv, (f##_copy(xp, n) - f##_copy(xm, n)) / (2 * h), 1e-6); \
	} while (0)
int main(void) {
	if (getenv("DIM")) DIM = atoi(getenv("DIM"));
	FDRUN(hcomps, 12);
	FDRUN(hcomps, 30);
	FDRUN(hpragma, 7);
	FDRUN(hpragma, 13);
	FDRUN(hcomps_callee, 12);
	FWDRUN(hcomps, 30);
	FWDRUN(hpragma, 13);
	return failures != 0;
}
`

// TestLoopHintsRun: the gradients and forward-mode derivatives match central
// differences at every level, combined and split, with components of 1 to 9 coordinates (no vector
// loop, a remainder only, both), and leak nothing.
func TestLoopHintsRun(t *testing.T) {
	runSizes(t, hintLoops, "DIM", []string{"1", "2", "4", "9"},
		[]string{"ok hcomps[29]", "ok hpragma[12]", "ok hcomps_callee[11]", "ok fwd hcomps", "ok fwd hpragma"})
}

// hintsOf lists the hint names of loop ID id (sorted), "" for none.
func hintsOf(id *metadata.Tuple) string {
	if id == nil {
		return ""
	}
	var names []string
	for _, f := range id.Fields[1:] {
		names = append(names, hintName(f))
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// copied is loop ID id with the hints a copy of the loop keeps.
func copied(id *metadata.Tuple) *metadata.Tuple {
	out := &metadata.Tuple{Fields: []metadata.Field{id}}
	for _, f := range id.Fields[1:] {
		if copyHint(hintName(f)) {
			out.Fields = append(out.Fields, f)
		}
	}
	return out
}

// TestLoopHintsIR: in the gradients of hcomps and hpragma, every loop
// whose latch carries hints keeps them in the forward sweep under a loop ID
// of its own (distinct, naming itself), and its reverse back edge carries
// the hints about vectorizing and unrolling, at least isvectorized for the
// loops the optimizer vectorized and unroll.disable for the pragma's; so do
// the tangent loops of their forward-mode derivatives; the module passes
// LLVM's verifier.
func TestLoopHintsIR(t *testing.T) {
	for _, o := range []string{"2", "3"} {
		m := preADModuleC(t, hintLoops, o)
		for _, name := range []string{"hcomps", "hpragma"} {
			for _, split := range []bool{false, true} {
				_, r := reverseOf(t, m, name, split, "hints_"+name)
				seen := map[string]bool{}
				for _, l := range r.cfg.Loops {
					if len(l.Latches) != 1 {
						continue
					}
					latch := l.Latches[0]
					pid := loopIDOf(*termMetadata(latch.Term))
					if pid == nil {
						continue
					}
					fid := loopIDOf(*termMetadata(r.fwdTail[latch].Term))
					if fid == nil || fid == pid || !fid.Distinct || fid.Fields[0] != fid || hintsOf(fid) != hintsOf(copied(pid)) {
						t.Errorf("-O%s %s (split %v): the forward copy of the loop at %s has hints %q, want a distinct loop ID of its own with hints %q",
							o, name, split, l.Header.Ident(), hintsOf(fid), hintsOf(copied(pid)))
					}
					var want []string
					for _, f := range pid.Fields[1:] {
						if n := hintName(f); reverseHint(n) {
							want = append(want, n)
						}
						seen[hintName(f)] = true
					}
					sort.Strings(want)
					var got *metadata.Tuple
					for _, b := range r.g.Blocks {
						if br, ok := b.Term.(*ir.TermBr); ok && br.Target == r.rev[latch] {
							if id := loopIDOf(br.Metadata); id != nil {
								got = id
							}
						}
					}
					if hintsOf(got) != strings.Join(want, " ") || (got != nil && got.Fields[0] != got) {
						t.Errorf("-O%s %s (split %v): the reverse of the loop at %s has hints %q, want %q",
							o, name, split, l.Header.Ident(), hintsOf(got), strings.Join(want, " "))
					}
				}
				for _, want := range map[string][]string{
					"hcomps":  {"llvm.loop.isvectorized", "llvm.loop.unroll.runtime.disable"},
					"hpragma": {"llvm.loop.unroll.disable", "llvm.loop.isvectorized"},
				}[name] {
					if !seen[want] {
						t.Errorf("-O%s %s: no loop with %s", o, name, want)
					}
				}
			}
		}
		// Forward mode: the tangent loops keep the hints too.
		for _, name := range []string{"hcomps", "hpragma"} {
			var f *ir.Func
			for _, g := range m.Funcs {
				if g.Name() == name {
					f = g
				}
			}
			d := newDiffer(m, Options{})
			fg, err := d.forward(f, []Activity{Dup, Const}, 1)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := irutil.NewCFG(fg.f)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range cfg.Loops {
				for _, latch := range l.Latches {
					pid := loopIDOf(*termMetadata(latch.Term))
					if pid == nil {
						continue
					}
					fid := loopIDOf(*termMetadata(fg.blk[latch].Term))
					if fid == nil || fid == pid || fid.Fields[0] != fid || hintsOf(fid) != hintsOf(copied(pid)) {
						t.Errorf("-O%s %s forward mode: the tangent loop at %s has hints %q, want %q", o, name, l.Header.Ident(), hintsOf(fid), hintsOf(copied(pid)))
					}
				}
			}
		}
		dir := t.TempDir()
		ll := filepath.Join(dir, "ad.ll")
		if err := irutil.WriteText(m, ll); err != nil {
			t.Fatal(err)
		}
		if out, err := toolchains.Run(context.Background(), "opt", "-passes=verify", "-disable-output", ll); err != nil {
			t.Fatalf("-O%s: the module with the gradients fails LLVM's verifier: %v\n%s", o, err, out)
		}
	}
}
