package ad

import "testing"

// TestMinChain: the gradients of testdata/min_chain.c against central
// differences at every level, and Hessian-vector products by forward over
// reverse against central differences of the gradients; leak-checked.
func TestMinChain(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "min_chain.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
		t.Run("linked-O"+o, func(t *testing.T) { run(t, buildCLinked(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestMinChainPlanned: at -O2 and -O3 (the loops shaped as gozyme's
// link-time pipeline does), the reverse of argmin, argmax, flipping and
// twice guards its skipped distance loop by a chain's flag, combined and
// split (at -O3 argmin's and flipping's first candidate's loop, outside
// the chain's, by the flag the chain ends with); leaky's, stored's and after's running minimum has other uses in
// the loop (or leaves it through memory) and gets none.
func TestMinChainPlanned(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "min_chain.c")
	for _, o := range []string{"2", "3"} {
		dir := t.TempDir()
		m := preAD(t, dir, compileBitcode(t, dir, "clang", "prog.c", src, o, "-Xclang", "-disable-llvm-passes"), o, linkedLoops...)
		for _, tc := range []struct {
			name  string
			chain bool
		}{{"argmin", true}, {"argmax", true}, {"flipping", true}, {"twice", true}, {"leaky", false}, {"stored", false}} {
			for _, split := range []bool{false, true} {
				d, r := reverseOf(t, m, tc.name, split, "chain_"+tc.name)
				flags := 0
				for _, a := range r.chainLive {
					if a != nil {
						flags++
					}
				}
				// At -O3 the first candidate's loop, before the
				// chain's, is skipped too where the chain ends false.
				if first := tc.name == "argmin" || tc.name == "flipping"; o == "3" && first && len(r.zeroSkips) != 2 {
					t.Errorf("-O3 %s (split %v): %d loops skipped where zero, want 2", tc.name, split, len(r.zeroSkips))
				}
				if got := flags > 0; got != tc.chain {
					t.Errorf("-O%s %s (split %v): %d chain flags, want flags %v", o, tc.name, split, flags, tc.chain)
				}
				d.dropFunc(r.g)
			}
		}
	}
}
