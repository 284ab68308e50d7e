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
// split; leaky's, stored's and after's running minimum has other uses in
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
				if got := flags > 0; got != tc.chain {
					t.Errorf("-O%s %s (split %v): %d chain flags, want flags %v", o, tc.name, split, flags, tc.chain)
				}
				d.dropFunc(r.g)
			}
		}
	}
}
