package preopt

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
)

// forceArgMemOnly is opt's -force-attribute for each function ArgMemOnly finds.
func forceArgMemOnly(m *ir.Module) []string {
	var args []string
	for _, n := range ArgMemOnly(m) {
		args = append(args, "-force-attribute="+n+":argmemonly")
	}
	return args
}

// light is the first pass over the frontend's IR: enough to give LLVM's
// function-attrs and ours SSA values and simplified loops, no inlining (a
// call inlined into a loop can no longer be hoisted as a whole).
const light = "function(sroa,early-cse<memssa>,simplifycfg,instcombine),cgscc(function-attrs)"

// hoist makes the inferred attributes take effect before the inliner runs:
// LICM hoists the now argmemonly calls while they are still calls.
const hoist = "forceattrs,function(loop-mssa(loop-rotate,licm))"

// reducible ends each pipeline: it rewrites a cycle with more than one
// entry (gotos into a loop, as in Cephes' incbi) into a loop with one
// header that a branch on the entry taken leads from (LLVM's
// FixIrreducible); AD needs each loop to have one header. Functions whose
// control flow is reducible, nearly all, are left as they are.
const reducible = "function(fix-irreducible)"

// noRuntimeUnroll keeps LLVM from unrolling loops whose trip count is only
// known at run time before AD. Such a loop becomes an unrolled loop plus a
// remainder loop (and guards around them), and the reverse sweep pays for
// each loop it differentiates: an iteration counter, the counter on entry
// and the induction start cached per execution of the enclosing loop, a
// record of which exit was taken. The optimizer after AD unrolls the
// gradient's loops as it sees fit. Loops with constant trip counts are
// still unrolled (fully or partially) before AD (what it saved:
// bench/results/history.md).
const noRuntimeUnroll = "-unroll-runtime=false"

// noVectorize keeps LLVM from vectorizing loops before AD, but those a
// pragma forces (vectorize(enable), vectorize_width; an interleave_count
// alone waits for the optimizer after AD). A loop vectorized before AD is a
// vector loop, a scalar remainder and the checks choosing between them, and
// AD differentiates all three: the forward sweep records which ran, the
// reverse sweep rebuilds each one's start. Loops that run a few iterations
// pay for that bookkeeping on every entry (bench/results/history.md). The
// optimizer after AD vectorizes the
// primal's functions and a gradient's outermost loops, not its loops inside
// loops (ad's loop hints, loophints.go).
const noVectorize = "-vectorize-loops=false"

// Options are Optimize's choices beyond its level.
type Options struct {
	// Extra are further opt arguments.
	Extra []string
	// Warn receives each optimization the pipeline went on without and
	// why, as one line with no "gozyme: " prefix and no newline; nil
	// drops them (gozyme-ld gives one under GOZYME_VERBOSE).
	Warn func(string)
	// Light, when not nil, is the light pipeline's opt started early for
	// this out (StartLight); Optimize feeds it the input instead of
	// starting one. The caller cancels it where Optimize does not use it
	// (level "0").
	Light *toolchains.Started
}

// lightArgs are the light pipeline's opt arguments reading from in and
// writing the light module for out.
func lightArgs(in, out string) []string {
	return []string{"-passes=" + light, "-S", "-preserve-ll-uselistorder", in, "-o", lightPath(out)}
}

// lightPath is where Optimize writes the light module for out.
func lightPath(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".light.ll"
}

// StartLight starts the light pipeline's opt of Optimize(ctx, in, out,
// level, opts) at a level other than "0" before its input exists, so
// that the tool loads while the caller writes in (Options.Light).
func StartLight(ctx context.Context, out string) (*toolchains.Started, error) {
	return toolchains.Start(ctx, "opt", lightArgs("-", out)...)
}

// warn passes a warning to o.Warn, if any.
func (o Options) warn(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(fmt.Sprintf(format, args...))
	}
}

// Optimize runs gozyme's pre-AD pipeline at optimization level ("0".."3",
// "s", "z") on the bitcode (or text) file in and writes the result to out,
// as text where out ends in .ll (what llir reads: no llvm-dis needed), else
// as bitcode, with opts.
// -O0 only inlines always_inline functions (as
// clang's own -O0 pipeline does; the C++ header <enzyme/enzyme> relies on
// it) and promotes locals to SSA values. Other levels
// run the light pipeline, infer argmemonly (ArgMemOnly), force inline the
// linkonce_odr callees AD reaches through their one call (singleUseInlines),
// and run LICM with
// the inferred attributes and then LLVM's default pipeline at that level,
// without runtime loop unrolling (noRuntimeUnroll) and loop vectorization
// (noVectorize).
func Optimize(ctx context.Context, in, out, level string, opts Options) error {
	extra := opts.Extra
	format := outputFormat(out)
	if level == "0" {
		_, err := toolchains.Run(ctx, "opt", append(append([]string{"-passes=always-inline,mem2reg," + reducible, in, "-o", out}, format...), extra...)...)
		return err
	}
	// The light module is read twice: here (as text) and by the second opt.
	// Written as text with its use-list order, it needs no llvm-dis, and opt
	// reads it as it would have read bitcode (which keeps the order too).
	lit := lightPath(out)
	var err error
	if opts.Light != nil {
		_, err = opts.Light.Feed(in)
	} else {
		_, err = toolchains.Run(ctx, "opt", lightArgs(in, out)...)
	}
	if err != nil {
		return err
	}
	withOrder, err := os.ReadFile(lit)
	if err != nil {
		return err
	}
	if kept := dropUseListOrderIf(withOrder, ofInlineAsm); len(kept) != len(withOrder) {
		// opt 14 writes directives for inline asm that its parser rejects.
		if err := os.WriteFile(lit, kept, 0o644); err != nil {
			return err
		}
		withOrder = kept
	}
	text := dropUseListOrder(withOrder)
	passes := "default<O" + level + ">," + reducible
	var args []string
	// Inference is an optimization: IR llir cannot read goes on without it
	// (the load after optimizing reports the problem if AD needs that code).
	// It costs a small part of a link (bench/results/history.md).
	m, err := irutil.ParseText(lit, text)
	if err != nil {
		opts.warn("no attribute inference before optimizing: %v", err)
	}
	src := lit
	var inlines []string
	if err == nil {
		args = forceArgMemOnly(m)
		for _, n := range singleUseInlines(m, string(text), forcedNoInline(extra)) {
			inlines = append(inlines, "-force-attribute="+n+":alwaysinline")
		}
		src = fuse(m, lit, text, opts)
	}
	if len(args) > 0 {
		passes = hoist + "," + passes
	} else if len(inlines) > 0 {
		passes = "forceattrs," + passes
	}
	args = append(args, inlines...)
	args = append(append(append(args, noRuntimeUnroll, noVectorize), extra...), "-passes="+passes)
	args = append(args, format...)
	_, err = toolchains.Run(ctx, "opt", append(args, src, "-o", out)...)
	if err != nil && src == lit && len(text) != len(withOrder) {
		// Should opt reject a use-list order directive it wrote itself, the
		// module goes on without them (the order only steers the optimizer).
		opts.warn("optimizing without the light module's use-list order: %v", err)
		if err = os.WriteFile(lit, text, 0o644); err == nil {
			_, err = toolchains.Run(ctx, "opt", append(args, lit, "-o", out)...)
		}
	}
	if err != nil && src != lit {
		// The fused module as llir wrote it is the one new input here:
		// should opt reject it, the unfused light module goes on.
		opts.warn("optimizing without loop fusion: %v", err)
		_, err = toolchains.Run(ctx, "opt", append(args, lit, "-o", out)...)
	}
	if err != nil {
		return fmt.Errorf("with inferred attributes: %w", err)
	}
	return nil
}

// fuse fuses the adjacent loops of m, the light module lit as parsed from
// text (FuseLoops), and returns the file the pipeline goes on from: lit
// when nothing was fused, else the fused module written next to it (lit's
// name with .fused.ll). Only the functions with fused loops, and what they
// refer to, are written by llir; the other definitions stay as they were
// (irutil.ParsePartial). Why it could not fuse goes to opts.Warn.
func fuse(m *ir.Module, lit string, text []byte, opts Options) string {
	fused := map[string]bool{}
	for _, f := range m.Funcs {
		if fuseFunc(f) > 0 {
			fused["@"+f.Name()+"("] = true
		}
	}
	if len(fused) == 0 {
		return lit
	}
	defines := func(body string) bool {
		first, _, _ := strings.Cut(body, "\n")
		for name := range fused {
			if strings.Contains(first, name) {
				return true
			}
		}
		return false
	}
	out := strings.TrimSuffix(lit, ".ll") + ".fused.ll"
	p, err := irutil.ParsePartial(lit, string(text), irutil.Seeds{Func: defines, Global: func(string) bool { return false }})
	if err == nil {
		FuseLoops(p.Module)
		err = p.WriteText(out)
	}
	if err != nil {
		opts.warn("no loop fusion: %v", err)
		return lit
	}
	return out
}

// outputFormat is opt's flag for writing out as text (.ll), if it is.
func outputFormat(out string) []string {
	if strings.HasSuffix(out, ".ll") {
		return []string{"-S"}
	}
	return nil
}

// dropUseListOrder is IR text without its uselistorder directives (opt
// -preserve-ll-uselistorder writes them): what llvm-dis would have printed.
// Parsed into llir and written back after edits they would no longer
// match the uses.
func dropUseListOrder(text []byte) []byte {
	return dropUseListOrderIf(text, func([]byte) bool { return true })
}

// dropUseListOrderIf is text without the uselistorder directives drop
// accepts (given the directive's line, without leading blanks).
func dropUseListOrderIf(text []byte, drop func(line []byte) bool) []byte {
	if !bytes.Contains(text, []byte("uselistorder")) {
		return text
	}
	var out bytes.Buffer
	out.Grow(len(text))
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i+1], text[i+1:]
		} else {
			text = nil
		}
		if t := bytes.TrimLeft(line, " "); bytes.HasPrefix(t, []byte("uselistorder")) && drop(t) {
			continue
		}
		out.Write(line)
	}
	return out.Bytes()
}

// forcedNoInline are the functions extra (opt arguments) forces noinline.
func forcedNoInline(extra []string) map[string]bool {
	names := map[string]bool{}
	for _, a := range extra {
		if n, ok := strings.CutPrefix(a, "-force-attribute="); ok {
			if n, ok := strings.CutSuffix(n, ":noinline"); ok {
				names[n] = true
			}
		}
	}
	return names
}

// ofInlineAsm reports a uselistorder directive of an inline asm value
// ("uselistorder <type> asm [sideeffect ...] "..."", ...): LLVM 14's
// parser rejects them ("invalid type for inline asm constraint string").
func ofInlineAsm(directive []byte) bool {
	q := bytes.IndexByte(directive, '"')
	if q < 0 {
		return false
	}
	fields := strings.Fields(string(directive[:q]))
	for i := len(fields) - 1; i > 0; i-- {
		switch fields[i] {
		case "sideeffect", "alignstack", "inteldialect", "unwind":
			continue
		case "asm":
			return true
		}
		return false
	}
	return false
}
