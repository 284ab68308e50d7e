package ad

import (
	"os"
	"strings"
	"testing"
)

// TestX86RsqrtRefined: the vrsqrtps and vrcpps estimates (of a
// vcvtpd2ps conversion) refined in double, over aligned local __m256d
// arrays (testdata/x86_rsqrt_refined.c). The estimates have the
// derivatives of the functions they approximate and the conversions are
// fptruncs (the link stopped: no derivative for llvm.x86.sse.rsqrt.ps,
// llvm.x86.avx.cvt.pd2.ps.256); the shadows of 32-byte aligned allocas
// the reverse sweep needs are allocated 32-byte aligned (malloc's 16 made
// the derivative's vmovapd fault at -O0). Reverse and forward mode match
// the exact function's central difference at every level.
func TestX86RsqrtRefined(t *testing.T) {
	t.Parallel()
	if cpu, err := os.ReadFile("/proc/cpuinfo"); err != nil || !strings.Contains(string(cpu), " avx2") {
		t.Skip("needs a CPU with AVX2")
	}
	src := testdataC(t, "x86_rsqrt_refined.c")
	for _, level := range optLevels {
		if out := run(t, buildC(t, src, level, "-mavx2")); !strings.HasPrefix(out, "ok") {
			t.Errorf("-O%s: %s", level, out)
		}
	}
}
