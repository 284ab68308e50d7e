package lto

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
)

// Huge straight-line functions. The derivative of a function of N
// statements without loops is one block of tens of N instructions, and
// LLVM 14's passes after AD are superlinear in a block's size: the SLP
// vectorizer, instruction selection, the machine scheduler, the two-address
// pass, stack-slot coloring, the execution-domain fix. For a module holding
// such a function the optimizer after AD runs without SLP on it
// (noimplicitfloat, taken back before code generation), and code
// generation sees its blocks cut into pieces (irutil.SplitLongBlocks),
// which it keeps apart to the end, the values it uses far from their
// definition go through stack slots (irutil.SpillLongLiveValues), it
// shares no stack slots between spills, and where it is very large its
// registers are allocated by LLVM's fast allocator and machine CSE is off.
// Other modules are compiled as before, in one step.

const (
	// hugeBlock is the size (instructions, before optimization) of a block
	// from which a function is treated as huge: no SLP on it. Derivative
	// blocks shrink ~3x in the optimizer (adjoint slots promoted).
	hugeBlock = 30000
	// splitBlock and splitPiece: blocks longer than splitBlock instructions
	// (after optimization) are cut into pieces of splitPiece.
	splitBlock = 2000
	splitPiece = 1000
	// spillDistance: in huge functions, values used further than this
	// (instructions) from their definition go through a stack slot.
	spillDistance = 1000
	// hugeMarker marks, before optimizing, the functions whose
	// noimplicitfloat is gozyme's and goes before code generation.
	hugeMarker = `"gozyme-huge"`
)

// fastRegallocSize: a module with a huge function of more than this many
// instructions (after optimization) gets the fast register allocator and
// no machine CSE: the greedy allocator and machine CSE grow faster than
// the function.
var fastRegallocSize = 150000

// markHugeFunctions gives the functions of m with a block of more than
// hugeBlock instructions the attributes that keep the SLP vectorizer and
// the inliner off them, and reports whether it marked any.
func markHugeFunctions(m *ir.Module) bool {
	marked := false
	for _, f := range m.Funcs {
		if !hasHugeBlock(f) || irutil.HasFuncAttr(f.FuncAttrs, enum.FuncAttrAlwaysInline) {
			continue
		}
		if irutil.HasFuncAttr(f.FuncAttrs, enum.FuncAttrNoImplicitFloat) {
			// The user's: no SLP already, and it must stay.
			marked = true
			continue
		}
		f.FuncAttrs = append(f.FuncAttrs, enum.FuncAttrNoImplicitFloat, enum.FuncAttrNoInline, ir.AttrString(hugeMarker[1:len(hugeMarker)-1]))
		marked = true
	}
	return marked
}

func hasHugeBlock(f *ir.Func) bool {
	for _, b := range f.Blocks {
		if len(b.Insts) > hugeBlock {
			return true
		}
	}
	return false
}

// compileHuge is the code generation of a module holding huge functions:
// clang's optimization at the user's level (args: clang's arguments of the
// one-step compile, input at args[inputArg], output after "-o"), then the
// noimplicitfloat given to the huge functions taken back, their long-lived
// values spilled, long blocks cut, and clang's code generation alone with
// the options that keep the cuts. Should the edited module fail to
// compile, the module as optimized is compiled instead.
func compileHuge(ctx context.Context, dir string, args []string, inputArg int, origin string) error {
	opt := filepath.Join(dir, "optimized-after.ll")
	optArgs := append([]string{"-S", "-emit-llvm"}, args...)
	for i, a := range optArgs {
		if a == "-o" && i+1 < len(optArgs) {
			optArgs[i+1] = opt
		}
	}
	err := timeStage(ctx, "optimize after AD", func() error { _, err := toolchains.Run(ctx, "clang", optArgs...); return err })
	if err != nil {
		return err
	}
	data, err := os.ReadFile(opt)
	if err != nil {
		return err
	}
	huge := irutil.HasMarkedAttributes(string(data), hugeMarker)
	text := irutil.StripMarkedAttributes(string(data), hugeMarker, "noimplicitfloat")
	edited, spilled, err := irutil.SpillLongLiveValues(text, spillDistance, huge)
	if err != nil {
		return fmt.Errorf("%s: spilling long-lived values: %v", origin, err)
	}
	edited, cut, err := irutil.SplitLongBlocks(edited, splitBlock, splitPiece)
	if err != nil {
		return fmt.Errorf("%s: cutting long blocks: %v", origin, err)
	}
	input := filepath.Join(dir, "codegen.ll")
	codegen := func(text string, flags ...string) error {
		if err := os.WriteFile(input, []byte(text), 0o644); err != nil {
			return err
		}
		cgArgs := append([]string(nil), args...)
		cgArgs[inputArg] = input
		cgArgs = append(cgArgs, "-Xclang", "-disable-llvm-passes")
		cgArgs = append(cgArgs, flags...)
		return timeStage(ctx, "codegen", func() error { _, err := toolchains.Run(ctx, "clang", cgArgs...); return err })
	}
	var flags []string
	if irutil.LargestFunction(text, huge) > fastRegallocSize {
		// Machine CSE, too, grows faster than the function: it merges
		// the materializations of each constant into one register and
		// scans all of that register's uses at every merge.
		flags = append(flags, "-mllvm", "-regalloc=fast", "-mllvm", "-optimize-regalloc=false", "-mllvm", "-disable-machine-cse")
	}
	if spilled+cut == 0 {
		return codegen(text, flags...)
	}
	// The cuts stay cuts: neither CodeGenPrepare nor the branch folder
	// after register allocation merges the pieces again (merged, the
	// reaching-definitions queries of the execution-domain fix scan the
	// whole function's block: quadratic).
	err = codegen(edited, append(flags, "-mllvm", "-disable-cgp-branch-opts", "-mllvm", "-disable-branch-fold", "-mllvm", "-no-stack-slot-sharing")...)
	if err == nil {
		return nil
	}
	// Invalid IR from the edits is gozyme's bug: the module as the
	// optimizer left it compiles too, only slower.
	if err2 := codegen(text); err2 != nil {
		return err2
	}
	if toolchains.ConfigOf(ctx).Verbose {
		fmt.Fprintf(os.Stderr, "gozyme: %s: compiling with long-lived values spilled and long blocks cut failed, compiled as it was: %v\n", origin, err)
	}
	return nil
}
