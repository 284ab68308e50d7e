package irutil

import (
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
)

// TestQuadConstants: fp128 constants read and written through llir keep
// LLVM's meaning (LLVM writes the low 64 bits first, llir the high ones):
// 2 - 2^-112 (whose low word, read as a high word, is a NaN's) reads as
// its value and writes back unchanged, and 1.0 built from a value is
// written as LLVM writes 1.0.
func TestQuadConstants(t *testing.T) {
	const src = `
define fp128 @f(fp128 %x) {
  %y = fmul fp128 %x, 0xLFFFFFFFFFFFFFFFF3FFFFFFFFFFFFFFF
  ret fp128 %y
}
`
	m, err := ParseText("quad.ll", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	mul := m.Funcs[0].Blocks[0].Insts[0].(*ir.InstFMul)
	c := mul.Y.(*constant.Float)
	want, _, err := big.ParseFloat("0x1.ffffffffffffffffffffffffffffp+0", 0, 113, big.ToNearestEven) // 2 - 2^-112
	if err != nil {
		t.Fatal(err)
	}
	if c.NaN || c.X.Cmp(want) != 0 {
		t.Errorf("0xLFFFFFFFFFFFFFFFF3FFFFFFFFFFFFFFF read as %s (NaN %v), want 2 - 2^-112 = %s", c.X.Text('p', 0), c.NaN, want.Text('p', 0))
	}
	mul.X = constant.NewFloat(types.FP128, 1)
	path := filepath.Join(t.TempDir(), "out.ll")
	if err := WriteText(m, path); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, lit := range []string{"0xL00000000000000003FFF000000000000", "0xLFFFFFFFFFFFFFFFF3FFFFFFFFFFFFFFF"} {
		if !strings.Contains(string(out), lit) {
			t.Errorf("no %s in\n%s", lit, out)
		}
	}
}
