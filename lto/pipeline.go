package lto

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gozyme/gozyme/ad"
	"github.com/gozyme/gozyme/custom"
	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/preopt"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
)

// Module is the embedded bitcode of one input, with the changes it needs
// before merging so that the merged module means what the linker makes of
// the objects (see group.go).
type Module struct {
	Bitcode []byte
	Origin  string
	Discard map[string]bool   // definitions the linker takes from elsewhere: made declarations
	Rename  map[string]string // references the linker resolves to another symbol (--wrap, --defsym)
	OptNone bool              // compiled at -O0: clang marked its functions optnone
	Digest  []byte            // sha256 of Bitcode where known (the link cache's key covers it), else nil
}

// RewriteJob is one module whose bitcode contains AD roots, merged with the
// modules of the link it needs before optimization.
type RewriteJob struct {
	Modules  []Module // the modules to merge, in link order
	Anchor   int      // the module with AD roots whose object the result replaces
	CC1Args  []string // the anchor compile's cc1 arguments (.llvmcmd), may be nil
	OptLevel string   // "0".."3", "s", "z": the link's -O, else the compile's
	TempDir  string   // per-link scratch directory
	OutPath  string   // native object to write
	ADStage  string   // "pre": differentiate before optimizing (Config.ADStage)
	// PrintTypes prints AD's type analysis to stderr (Config.PrintTypes).
	PrintTypes bool
	// Cut, when not nil, asks for the roots' cut of the module (cut.go):
	// the native objects of the group stay in the link.
	Cut *CutInputs
}

// Origin names the job in messages: "dir/a.o" or "lib.a(a.o)".
func (job RewriteJob) Origin() string { return job.Modules[job.Anchor].Origin }

// RewriteObject runs the link-time AD pipeline on one module: optimize at the
// user's level (AD after optimization), differentiate every root, then
// optimize the result again and generate a native object at job.OutPath.
func RewriteObject(ctx context.Context, job RewriteJob) (err error) {
	origin := job.Origin()
	defer func() {
		if p := recover(); p != nil {
			err = internalError(ctx, origin, p)
		}
	}()
	dir, err := os.MkdirTemp(job.TempDir, "module-")
	if err != nil {
		return err
	}
	in, err := mergeModules(ctx, dir, job)
	if err != nil {
		return err
	}
	if job.Cut != nil {
		cerr := rewriteCut(ctx, dir, in, job)
		if cerr == nil {
			return nil
		}
		if toolchains.ConfigOf(ctx).Verbose {
			fmt.Fprintf(os.Stderr, "gozyme: %s: rewriting the whole module: %v\n", origin, cerr)
		}
		os.Remove(job.OutPath)
	}
	err = rewriteModule(ctx, dir, in, job, nil, nil)
	if err != nil && len(job.Modules) == 1 {
		// The first tool to read a lone module's bitcode is the
		// pipeline's (merged modules: llvm-link, mergeModules).
		if cerr := corruptModule(ctx, dir, job); cerr != nil {
			return cerr
		}
	}
	return err
}

// rewriteModule optimizes the module at in, differentiates it, and
// generates job.OutPath; beforeCodegen, when not nil, edits the
// differentiated module's text file before code generation; light, when
// not nil, is the light pipeline's opt started for it (preopt.StartLight),
// which rewriteModule feeds or cancels.
func rewriteModule(ctx context.Context, dir, in string, job RewriteJob, beforeCodegen func(path string) error, light *toolchains.Started) error {
	defer light.Cancel()
	origin := job.Origin()
	level := normalizeOptLevel(job.OptLevel)
	// Text: what AD parses, written by opt itself (no llvm-dis).
	pre := filepath.Join(dir, "optimized.ll")
	var optArgs []string
	if mentionsCustomRules(job) {
		// Functions with custom derivatives must stay calls: their calls
		// take the rule instead of being differentiated; so must those
		// declared inactive, function-like or allocation-like. The
		// enzyme(...) attribute makes its function noinline where it is
		// defined; the others are found in the registration globals and
		// annotations alone (llvm-extract reads no function bodies).
		names, err := registeredRuleNames(ctx, in, origin)
		if err != nil {
			return err
		}
		for _, name := range names {
			optArgs = append(optArgs, "-force-attribute="+name+":noinline")
		}
	}
	adLevel := adStageLevel(job.ADStage, level)
	err := timeStage(ctx, "optimize", func() error {
		return preopt.Optimize(ctx, in, pre, adLevel, preopt.Options{Extra: optArgs, Warn: warnings(ctx), Light: light})
	})
	if err != nil {
		return fmt.Errorf("%s: optimizing before AD: %w", origin, err)
	}
	post := filepath.Join(dir, "differentiated.ll")
	args := []string{"-c", "-O" + level, post, "-o", job.OutPath, "-Wno-override-module"}
	if adLevel != "0" {
		// AD ran on optimized code (not at -O0, not GOZYME_AD_STAGE=pre).
		args = append(args, keepCacheStores...)
	}
	args = append(args, codegenFlags(job.CC1Args)...)
	// The code generator's clang loads while AD runs (toolchains.Start);
	// at -O0 it compiles another file (promoted.bc), and a huge module
	// goes to compileHuge instead.
	var codegen *toolchains.Started
	if level != "0" {
		early := append(append(append([]string{}, args[:2]...), "-x", "ir", "-"), args[3:]...)
		codegen, _ = toolchains.Start(ctx, "clang", early...) // nil on failure: run after AD instead
		defer codegen.Cancel()
	}
	huge := false
	err = timeStage(ctx, "differentiate", func() error {
		// A program that stores pointers without shadows into memory with
		// shadows is differentiated again, from a fresh parse, with
		// run-time activity checks (ad.Options.RuntimeActivity).
		for _, runtimeActivity := range []bool{false, true} {
			part, err := irutil.LoadPartial(ctx, pre, adSeeds)
			if err != nil {
				return fmt.Errorf("%s: %w", origin, err)
			}
			m := part.Module
			if toolchains.ConfigOf(ctx).Verbose {
				parsed, elided := part.Parsed()
				fmt.Fprintf(os.Stderr, "gozyme: %s: parsed %d function definitions, left %d unparsed\n", origin, parsed, elided)
			}
			rules, err := custom.Find(m)
			if err != nil {
				return fmt.Errorf("%s: %w", origin, err)
			}
			opts := ad.Options{Custom: map[*ir.Func]*ad.Custom{}, RuntimeActivity: runtimeActivity}
			opts.Unparsed = part.Elided
			if job.PrintTypes {
				opts.TypeReport = os.Stderr
			}
			for f, r := range rules {
				opts.Custom[f] = &ad.Custom{Augment: r.Augment, Gradient: r.Gradient, Forward: r.Forward}
			}
			_, err = ad.Differentiate(m, opts)
			if ad.NeedsRuntimeActivity(err) && !runtimeActivity {
				if toolchains.ConfigOf(ctx).Verbose {
					fmt.Fprintf(os.Stderr, "gozyme: %s: differentiating again with run-time activity checks: %v\n", origin, err)
				}
				continue
			}
			if err != nil {
				return presentADError(ctx, err)
			}
			views := ad.PrepareDenseViews(m)
			huge = markHugeFunctions(m)
			irutil.NumberInlineMetadata(m)
			if err := part.WriteText(post); err != nil {
				return err
			}
			if views {
				return lowerDenseViews(ctx, dir, post, origin)
			}
			return nil
		}
		return nil
	})
	if err != nil {
		return err
	}
	if beforeCodegen != nil {
		if err := beforeCodegen(post); err != nil {
			return err
		}
	}
	if level == "0" {
		// Promote the gradient's adjoint and cache slots to registers even
		// at -O0: the derivative code is gozyme's, not the user's.
		promoted := filepath.Join(dir, "promoted.bc")
		if _, err := toolchains.Run(ctx, "opt", "-passes=mem2reg", post, "-o", promoted); err != nil {
			return fmt.Errorf("%s: gozyme generated invalid IR (please report): %w", origin, err)
		}
		args[2] = promoted
	}
	switch {
	case huge:
		codegen.Cancel()
		err = compileHuge(ctx, dir, args, 2, origin)
	case codegen != nil:
		err = timeStage(ctx, "codegen", func() error { _, err := codegen.Feed(post); return err })
	default:
		err = timeStage(ctx, "codegen", func() error { _, err := toolchains.Run(ctx, "clang", args...); return err })
	}
	if err != nil {
		return fmt.Errorf("%s: compiling the differentiated module: %w", origin, err)
	}
	return nil
}

// lowerDenseViews lowers the accesses through Enzyme's dense views
// (__enzyme_todense) of the differentiated module at path, in place: the
// functions receiving a view were marked alwaysinline (ad.PrepareDenseViews);
// LLVM's always-inliner puts them where the view is made, then
// ad.LowerDenseViews turns each load and store into a call of the view's
// functions.
func lowerDenseViews(ctx context.Context, dir, path, origin string) error {
	inlined := filepath.Join(dir, "inlined.ll")
	if _, err := toolchains.Run(ctx, "opt", "-passes=always-inline", "-S", path, "-o", inlined); err != nil {
		return fmt.Errorf("%s: gozyme generated invalid IR (please report): %w", origin, err)
	}
	names := ad.DenseViewNames()
	part, err := irutil.LoadPartial(ctx, inlined, irutil.Seeds{
		Func: func(body string) bool {
			for _, n := range names {
				if strings.Contains(body, n) {
					return true
				}
			}
			return false
		},
		Global: func(string) bool { return false },
	})
	if err != nil {
		return fmt.Errorf("%s: %w", origin, err)
	}
	if err := ad.LowerDenseViews(part.Module); err != nil {
		return presentADError(ctx, err)
	}
	return part.WriteText(path)
}

// keepCacheStores keeps the optimizer after AD from turning loops that
// store loaded values into memcpy calls (LoopIdiomRecognize). The forward
// sweep caches a value it loads in the loop that loads it; as a memcpy the
// copy becomes a call before the loop reading the values a second time,
// whose call overhead and spills a short loop pays on every entry
// (bench/results/history.md). The primal code was optimized before AD with the idiom on: only loops that
// AD wrote are concerned. Not where AD ran before optimizing
// (GOZYME_AD_STAGE=pre), where the user's loops are optimized here too.
var keepCacheStores = []string{"-mllvm", "-disable-loop-idiom-memcpy"}

// adSeeds is what AD reads: the functions calling Enzyme entry points,
// Enzyme's registration globals and the annotations of enzyme(...)
// attributes; with what they refer to, transitively, that is all AD and
// package custom look at, so only that is parsed into llir.
var adSeeds = irutil.Seeds{
	Func: func(body string) bool { return strings.Contains(body, "__enzyme_") },
	Global: func(name string) bool {
		return strings.Contains(name, "__enzyme_") || name == "llvm.global.annotations"
	},
}

func normalizeOptLevel(l string) string {
	switch l {
	case "", "0":
		return "0"
	case "1", "2", "3", "s", "z":
		return l
	case "fast":
		return "3"
	case "g":
		return "1"
	}
	return "2"
}

// warnings is the pre-AD pipeline's preopt.Options.Warn: its warnings go
// to stderr under GOZYME_VERBOSE, nowhere otherwise.
func warnings(ctx context.Context) func(string) {
	if !toolchains.ConfigOf(ctx).Verbose {
		return nil
	}
	return func(msg string) { fmt.Fprintf(os.Stderr, "gozyme: %s\n", msg) }
}

// adStageLevel is the optimization level before AD: the user's, or "0"
// (locals promoted to SSA values, nothing else) when stage is "pre"
// (Config.ADStage, GOZYME_AD_STAGE=pre) to differentiate before optimizing,
// for benchmarks of AD after optimization.
func adStageLevel(stage, level string) string {
	if stage == "pre" {
		return "0"
	}
	return level
}

// codegenFlags carries the code-generation choices of the original compile
// (relocation model, sections) from its cc1 arguments to the driver.
func codegenFlags(cc1 []string) []string {
	var out []string
	model, pie := "", false
	for i, a := range cc1 {
		switch {
		case a == "-mrelocation-model" && i+1 < len(cc1):
			model = cc1[i+1]
		case a == "-pic-is-pie":
			pie = true
		case a == "-ffunction-sections", a == "-fdata-sections":
			out = append(out, a)
		}
	}
	switch {
	case model == "static":
		out = append(out, "-fno-pic")
	case model == "pic" && pie:
		out = append(out, "-fPIE")
	case model == "pic":
		out = append(out, "-fPIC")
	}
	return out
}

// registeredRuleNames returns the functions named by the registration
// globals (__enzyme_register_*, __enzyme_inactivefn, ...) and annotations
// of the bitcode file in, read with llvm-extract.
// A module without any (one using only the enzyme(...) attribute) is no
// error: llvm-extract reports it as a missing global. Any other failure is,
// naming origin rather than gozyme's temporary file.
func registeredRuleNames(ctx context.Context, in, origin string) ([]string, error) {
	text, err := toolchains.Run(ctx, "llvm-extract", "--rglob="+declarationGlobals, "-S", "-o", "-", in)
	if err != nil {
		var te *toolchains.ToolError
		if errors.As(err, &te) && strings.Contains(te.Stderr, "doesn't contain global named") {
			return nil, nil
		}
		msg := strings.ReplaceAll(err.Error(), in, origin)
		return nil, fmt.Errorf("%s: reading custom derivative registrations: %s", origin, msg)
	}
	return custom.NamesInText(string(text)), nil
}

// declarationGlobals matches the globals that registeredRuleNames reads (one
// regular expression: llvm-extract fails on one that matches nothing), with
// the strings that say which annotations are Enzyme's (a global referred
// to but not extracted loses its contents).
const declarationGlobals = `^__enzyme_register_|__enzyme_inactivefn|__enzyme_function_like|__enzyme_allocation_like|^llvm\.global\.annotations$|^\.str`

// mentionsCustomRules reports whether any module of the job may register a
// custom derivative (a registration global or an enzyme(...) attribute) or
// declare a function inactive, function-like or allocation-like.
func mentionsCustomRules(job RewriteJob) bool {
	has := func(bc []byte) bool {
		for _, s := range []string{"__enzyme_register_", custom.AnnotationPrefix, "__enzyme_inactivefn", "__enzyme_function_like", "__enzyme_allocation_like"} {
			if bytes.Contains(bc, []byte(s)) {
				return true
			}
		}
		return false
	}
	for _, m := range job.Modules {
		if has(m.Bitcode) {
			return true
		}
	}
	return false
}
