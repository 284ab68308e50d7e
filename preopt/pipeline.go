package preopt

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
)

// light is the first pass over the frontend's IR: enough to give LLVM's
// function-attrs and ours SSA values and simplified loops, no inlining (a
// call inlined into a loop can no longer be hoisted as a whole).
const light = "function(sroa,early-cse<memssa>,simplifycfg,instcombine),cgscc(function-attrs)"

// hoist makes the inferred attributes take effect before the inliner runs:
// LICM hoists the now argmemonly calls while they are still calls.
const hoist = "forceattrs,function(loop-mssa(loop-rotate,licm))"

// Optimize runs gozyme's pre-AD pipeline at optimization level ("0".."3",
// "s", "z") on the bitcode file in and writes bitcode to out; extra are
// further opt arguments. -O0 only promotes locals to SSA values. Other levels
// run the light pipeline, infer argmemonly (ArgMemOnly), and run LICM with
// the inferred attributes and then LLVM's default pipeline at that level.
func Optimize(ctx context.Context, in, out, level string, extra []string) error {
	if level == "0" {
		_, err := toolchains.Run(ctx, "opt", append([]string{"-passes=mem2reg", in, "-o", out}, extra...)...)
		return err
	}
	lit := strings.TrimSuffix(out, filepath.Ext(out)) + ".light.bc"
	if _, err := toolchains.Run(ctx, "opt", "-passes="+light, in, "-o", lit); err != nil {
		return err
	}
	text, err := toolchains.Run(ctx, "llvm-dis", "-o", "-", lit)
	if err != nil {
		return err
	}
	m, err := irutil.ParseText(lit, text)
	if err != nil {
		return err
	}
	passes := "default<O" + level + ">"
	var args []string
	if names := ArgMemOnly(m); len(names) > 0 {
		passes = hoist + "," + passes
		for _, n := range names {
			args = append(args, "-force-attribute="+n+":argmemonly")
		}
	}
	args = append(append(args, extra...), "-passes="+passes, lit, "-o", out)
	if _, err := toolchains.Run(ctx, "opt", args...); err != nil {
		return fmt.Errorf("with inferred attributes: %w", err)
	}
	return nil
}
