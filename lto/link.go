package lto

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
)

// Link runs gozyme-ld on its arguments (os.Args[1:]) with the
// configuration cfg (ConfigFromEnv) and returns the exit status. A link whose inputs hold no AD roots runs the real linker on
// the original arguments; otherwise each module with roots is rewritten by
// RewriteObject and the real linker runs with the rewritten objects (and
// archive copies) in place of the originals.
func Link(cfg Config, args []string) int {
	irutil.QuietParser()
	ctx := toolchains.WithConfig(context.Background(), cfg.Tools)
	defer paceGC()()
	if cfg.CPUProfile != "" {
		if stop := startCPUProfile(cfg.CPUProfile); stop != nil {
			defer stop()
		}
	}
	if cfg.Times {
		var st *stageTimes
		ctx, st = withStageTimes(ctx)
		defer func(start time.Time) { st.report(os.Stderr, time.Since(start)) }(time.Now())
	}
	code, err := linkRecovering(ctx, cfg, args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gozyme-ld: error: %v\n", err)
		return 1
	}
	return code
}

// linkRecovering is link, with a panic (a bug of gozyme's) turned into an
// internal error: the real linker does not run after it and no output is
// left behind.
func linkRecovering(ctx context.Context, cfg Config, args []string) (code int, err error) {
	defer func() {
		if p := recover(); p != nil {
			code, err = 1, internalError(ctx, "link", p)
			if expanded, e := ExpandResponseFiles(args); e == nil {
				if line, e := ParseLinkArgs(expanded); e == nil {
					removeOutput(line.Output)
				}
			}
		}
	}()
	return link(ctx, cfg, args)
}

// link does Link's work; a non-nil error is gozyme's own failure.
func link(ctx context.Context, cfg Config, args []string) (int, error) {
	realLD, err := cfg.RealLinker()
	if err != nil {
		return 1, err
	}
	expanded, err := ExpandResponseFiles(args)
	if err != nil {
		return 1, err
	}
	line, err := ParseLinkArgs(expanded)
	if err != nil || line.Relocatable() {
		// The real linker reports malformed lines; ld -r output is an
		// object whose roots are differentiated when it is linked.
		return runLinker(cfg.Tools, realLD, args)
	}
	rl := newRelink(cfg, realLD, args, expanded)
	if code, ok, err := rl.replay(ctx); ok {
		return code, err
	}
	var mayHaveRoots bool
	timeStage(ctx, "scan", func() error { mayHaveRoots = quickScan(line, realLD, cfg.CacheDir, rl.fileLog()); return nil })
	if !mayHaveRoots {
		// No input mentions an Enzyme entry point: the plain link.
		var code int
		err := timeStage(ctx, "native link", func() error {
			var err error
			code, err = runLinker(cfg.Tools, realLD, args)
			return err
		})
		return code, err
	}
	var inputs, roots []*Input
	err = timeStage(ctx, "gather", func() error {
		var err error
		if inputs, err = Resolve(line, ResolveOptions{RealLD: realLD, LLD: IsLLD(realLD), Names: cfg.ObjectSources, CacheDir: cfg.CacheDir, log: rl.fileLog()}); err != nil {
			return err
		}
		roots, err = rootInputs(inputs)
		return err
	})
	if err != nil {
		return 1, err
	}
	if len(roots) == 0 {
		var code int
		err := timeStage(ctx, "native link", func() error {
			var err error
			code, err = runLinker(cfg.Tools, realLD, args)
			return err
		})
		return code, err
	}
	code, err := linkRewritten(ctx, cfg, realLD, args, line, inputs, roots, rl)
	if err != nil {
		removeOutput(line.Output)
	}
	return code, err
}

// rootInputs returns the inputs whose bitcode calls an Enzyme entry point.
// Unreadable bitcode and objects calling one without embedded bitcode are
// errors. So is, when there are roots, an input whose symbols cannot be
// read (a truncated object, a corrupt archive): which definitions the
// derivative uses cannot be known without them, and the real linker
// rejects it too. Other inputs are left to the real linker.
func rootInputs(inputs []*Input) ([]*Input, error) {
	var roots []*Input
	var unreadable error
	for _, in := range inputs {
		nativeSyms(in)
		if in.SymErr != nil && unreadable == nil {
			unreadable = in.Err
			if unreadable == nil {
				unreadable = fmt.Errorf("%s: %v", in.Origin, in.SymErr)
			}
		}
		switch {
		case in.Err != nil:
			if HasADRoots(in.Data) {
				return nil, in.Err
			}
		case in.Bitcode != nil:
			if HasADRoots(in.Bitcode) {
				roots = append(roots, in)
			}
		case callsEntryPoint(in.Data):
			return nil, fmt.Errorf("%s: calls an Enzyme entry point but has no embedded bitcode; compile it with gozyme-cc", in.Origin)
		}
	}
	if len(roots) > 0 && unreadable != nil {
		return nil, unreadable
	}
	return roots, nil
}

// callsEntryPoint reports whether an object references an Enzyme entry
// point as an undefined symbol.
func callsEntryPoint(data []byte) bool {
	if !HasADRoots(data) {
		return false
	}
	syms, _ := elfSymbols(data)
	for _, s := range syms {
		if !s.defined && HasADRoots([]byte(s.name)) {
			return true
		}
	}
	return false
}

// RealLinker returns the linker gozyme-ld drives: cfg.RealLD
// ($GOZYME_REAL_LD), else ld on PATH, which must not be gozyme-ld itself.
func (cfg Config) RealLinker() (string, error) {
	if cfg.RealLD != "" {
		return exec.LookPath(cfg.RealLD)
	}
	p, err := exec.LookPath("ld")
	if err != nil {
		return "", fmt.Errorf("cannot find the real linker: set GOZYME_REAL_LD (%v)", err)
	}
	if self, err := os.Executable(); err == nil && sameFile(self, p) {
		return "", errors.New("ld on PATH is gozyme-ld itself: set GOZYME_REAL_LD to the real linker")
	}
	return p, nil
}

// IsLLD reports whether a linker path names LLVM's lld.
func IsLLD(path string) bool {
	return strings.Contains(filepath.Base(path), "lld")
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// runLinker runs the real linker with the caller's stdio; its failure is
// passed through as an exit status, not reported again.
func runLinker(tools toolchains.Config, path string, args []string) (int, error) {
	err := tools.Interactive(path, args, nil)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 1, fmt.Errorf("running %s: %v", path, err)
	}
	return toolchains.ExitCode(err), nil
}

// removeOutput deletes a partial output after gozyme's own failure.
func removeOutput(path string) {
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() {
		os.Remove(path)
	}
}
