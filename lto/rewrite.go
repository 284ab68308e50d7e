package lto

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/gozyme/gozyme/ad"
	"golang.org/x/sync/errgroup"
)

// linkRewritten rewrites every group of root modules (see group.go),
// substitutes the results into the command line and runs the real linker,
// all in one temporary directory; a successful link is recorded for the
// fast path rl (nil: none).
func linkRewritten(ctx context.Context, cfg Config, realLD string, args []string, line *LinkLine, inputs, roots []*Input, rl *relink) (int, error) {
	tmp, cleanup, err := cfg.linkTempDir()
	if err != nil {
		return 1, err
	}
	defer cleanup()

	var groups []*rewriteGroup
	view := resolveSymbols(inputs, linkRules(line))
	err = timeStage(ctx, "gather", func() error {
		bcSyms, err := bitcodeSymbols(ctx, cfg.CacheDir, tmp, inputs)
		if err != nil {
			return err
		}
		groups, err = groupRoots(inputs, roots, bcSyms, view)
		return err
	})
	if err != nil {
		return 1, err
	}
	outs, err := rewriteAll(ctx, cfg, groups, tmp, ltoOptLevel(line), view)
	if err != nil {
		return 1, explainMissingBody(err, inputs, view)
	}
	subst, err := substitutions(groups, outs, line, tmp)
	if err != nil {
		return 1, err
	}
	newArgs := substituteArgs(line, subst)
	ldArgs, err := linkerArgs(tmp, newArgs, usesResponseFile(args))
	if err != nil {
		return 1, err
	}
	var code int
	err = timeStage(ctx, "native link", func() error {
		var err error
		code, err = runLinker(cfg.Tools, realLD, ldArgs)
		return err
	})
	if err == nil && code == 0 {
		rl.record(ctx, tmp, newArgs, usesResponseFile(args))
	}
	return code, err
}

// linkTempDir makes the per-link scratch directory: under cfg.KeepTemps
// ($GOZYME_KEEP_TEMPS, kept) when set, else under the system temp dir
// (removed by cleanup).
func (cfg Config) linkTempDir() (string, func(), error) {
	if keep := cfg.KeepTemps; keep != "" {
		if err := os.MkdirAll(keep, 0o755); err != nil {
			return "", nil, err
		}
		dir, err := os.MkdirTemp(keep, "gozyme-ld-")
		return dir, func() {}, err
	}
	dir, err := os.MkdirTemp("", "gozyme-ld-")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// rewriteAll runs RewriteObject on every group, in parallel (cfg.Jobs or
// GOMAXPROCS at a time). It returns the native object written for each;
// of several failures the first in link order is reported.
func rewriteAll(ctx context.Context, cfg Config, groups []*rewriteGroup, tmp, ltoLevel string, view *symbolView) ([]string, error) {
	outs := make([]string, len(groups))
	errs := make([]error, len(groups))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cfg.jobLimit())
	var stored atomic.Int32 // objects the jobs added to the link cache
	for i, grp := range groups {
		in := grp.anchor
		outs[i] = filepath.Join(tmp, tempName(in)+".o")
		job := RewriteJob{
			CC1Args:    in.CC1Args,
			OptLevel:   cfg.optLevelFor(in, ltoLevel),
			TempDir:    tmp,
			OutPath:    outs[i],
			ADStage:    cfg.ADStage,
			PrintTypes: cfg.PrintTypes,
		}
		for k, m := range grp.members {
			if m == in {
				job.Anchor = k
			}
			mod := Module{Bitcode: m.Bitcode, Origin: m.Origin, OptNone: hasOptNone(m.CC1Args)}
			if cfg.CacheDir != "" {
				mod.Digest = m.bitcodeDigest() // before the jobs run: they share m
			}
			if e := grp.edits[m]; e != nil {
				mod.Discard, mod.Rename = e.discard, e.rename
			}
			job.Modules = append(job.Modules, mod)
		}
		if !cfg.WholeModule && !mentionsCustomRules(job) {
			job.Cut = cutInputs(grp, view)
		}
		g.Go(func() (err error) {
			// A panic must become this job's error here: unwinding, it
			// would run errgroup's bookkeeping, Wait would return with no
			// error and the real linker would start while the process dies.
			defer func() {
				if p := recover(); p != nil {
					err = internalError(ctx, job.Origin(), p)
					errs[i] = err
				}
			}()
			err = cachedRewrite(gctx, cfg, job, &stored)
			if err != nil && gctx.Err() == nil {
				errs[i] = err // a failure of its own, not a cancellation
			}
			return err
		})
	}
	werr := g.Wait()
	if stored.Load() > 0 {
		trimCache(cfg.CacheDir, cacheLimit) // once per link, not per entry written
	}
	if werr == nil {
		for i, grp := range groups {
			if owned, _ := partialOwned(outs[i]); owned != nil {
				continue // the members stay in the link, their sections too
			}
			if err := keepUserBitcode(outs[i], grp.members); err != nil {
				return nil, err
			}
		}
		return outs, nil
	}
	for i, err := range errs {
		if err != nil {
			return nil, withOrigin(groups[i].anchor.Origin, err)
		}
	}
	return nil, werr
}

// rewriteObject is RewriteObject; tests stand in a fake.
var rewriteObject = RewriteObject

// withOrigin prefixes an error with the module's origin unless it has it.
func withOrigin(origin string, err error) error {
	if strings.HasPrefix(err.Error(), origin+":") {
		return err
	}
	return &originError{origin, err}
}

// originError is an error prefixed with the input it is about. It formats
// when printed, so that explainMissingBody's addition to an AD error
// inside shows.
type originError struct {
	origin string
	err    error
}

func (e *originError) Error() string { return e.origin + ": " + e.err.Error() }
func (e *originError) Unwrap() error { return e.err }

// tempName is a stable name for an input's files: its argument index, and
// its member index for an archive member.
func tempName(in *Input) string {
	if in.Member != nil {
		return fmt.Sprintf("arg%03d-m%04d", in.Item, in.Member.Index)
	}
	return fmt.Sprintf("arg%03d", in.Item)
}

// optLevelFor is cfg.OptLevel ($GOZYME_OPT_LEVEL) when set, else the
// compile's -O. A -flto object has no compile command: its level is the
// link's LTO level (ltoLevel).
func (cfg Config) optLevelFor(in *Input, ltoLevel string) string {
	if v := cfg.OptLevel; v != "" {
		if l, ok := optLevel("-O" + strings.TrimPrefix(v, "-O")); ok {
			return l
		}
		return v
	}
	if in.LTO && in.CC1Args == nil {
		return ltoLevel
	}
	return OptLevelFromCC1(in.CC1Args)
}

// ltoOptLevel is the optimization level the linker's LTO plugin (or lld's
// LTO) would use: -plugin-opt=O<n>, --lto-O<n>, else 2, its default.
func ltoOptLevel(line *LinkLine) string {
	level := "2"
	for _, it := range line.Items {
		var v string
		switch {
		case it.Name == "plugin-opt":
			v = it.Value
		case strings.HasPrefix(it.Name, "lto-O"):
			v = strings.TrimPrefix(it.Name, "lto-")
		}
		if l, ok := optLevel("-" + v); ok && strings.HasPrefix(v, "O") {
			level = l
		}
	}
	return level
}

func (cfg Config) jobLimit() int {
	if cfg.Jobs > 0 {
		return cfg.Jobs
	}
	return runtime.GOMAXPROCS(0)
}

// substitutions maps argument indices (LinkLine.Items) to what replaces
// them: the merged, rewritten object for a group's anchor, nothing (the
// argument is dropped) for an object merged into another, or a copy of an
// archive with its anchors replaced and its merged members removed. A
// group rewritten from the roots' cut (cut.go) keeps its members, with
// their definitions of the functions it owns made weak, and its object
// comes beside its anchor (before the archive, for a member). An empty
// string in a list stands for the argument's own words.
func substitutions(groups []*rewriteGroup, outs []string, line *LinkLine, tmp string) (map[int][]string, error) {
	subst := map[int][]string{}
	type memberEdit struct {
		in   *Input
		data []byte // nil to remove the member
	}
	archives := map[int][]memberEdit{}
	before := map[int][]string{} // objects to put before an archive argument
	var order []int
	editMember := func(in *Input, data []byte) {
		if _, ok := archives[in.Item]; !ok {
			order = append(order, in.Item)
		}
		archives[in.Item] = append(archives[in.Item], memberEdit{in, data})
	}
	for i, g := range groups {
		owned, err := partialOwned(outs[i])
		if err != nil {
			return nil, err
		}
		for _, in := range g.members {
			if in.ViaScript {
				return nil, fmt.Errorf("%s: named by linker script %s; pass it on the command line to differentiate it", in.Origin, line.Items[in.Item].Value)
			}
			if owned != nil {
				native, changed, err := weakenedInput(in, owned)
				if err != nil {
					return nil, err
				}
				switch {
				case in.Member != nil:
					if changed {
						editMember(in, native)
					}
					if in == g.anchor {
						before[in.Item] = append(before[in.Item], outs[i])
					}
				case in == g.anchor:
					p := ""
					if changed {
						p = filepath.Join(tmp, tempName(in)+".native.o")
						if err := os.WriteFile(p, native, 0o644); err != nil {
							return nil, err
						}
					}
					subst[in.Item] = []string{p, outs[i]}
				case changed:
					p := filepath.Join(tmp, tempName(in)+".native.o")
					if err := os.WriteFile(p, native, 0o644); err != nil {
						return nil, err
					}
					subst[in.Item] = []string{p}
				}
				continue
			}
			if in.Member == nil {
				if in == g.anchor {
					subst[in.Item] = []string{outs[i]}
				} else {
					subst[in.Item] = []string{}
				}
				continue
			}
			if in == g.anchor {
				data, err := os.ReadFile(outs[i])
				if err != nil {
					return nil, fmt.Errorf("%s: %v", in.Origin, err)
				}
				editMember(in, data)
			} else {
				editMember(in, nil)
			}
		}
	}
	for _, item := range order {
		edits := archives[item]
		a := edits[0].in.Archive
		replace := map[int][]byte{}
		remove := map[int]bool{}
		for _, e := range edits {
			if e.data == nil {
				remove[e.in.Member.Index] = true
				continue
			}
			replace[e.in.Member.Index] = e.data
		}
		cp := &Archive{Path: a.Path, Members: a.Members}
		for _, idx := range sortedInts(replace) {
			members, err := cp.ReplaceMember(idx, replace[idx])
			if err != nil {
				return nil, err
			}
			cp.Members = members
		}
		var kept []*Member
		for _, m := range cp.Members {
			if !remove[m.Index] {
				kept = append(kept, m)
			}
		}
		path := filepath.Join(tmp, fmt.Sprintf("arg%03d-%s", item, filepath.Base(a.Path)))
		if err := WriteArchiveFile(path, kept); err != nil {
			return nil, fmt.Errorf("%s: writing archive copy: %v", a.Path, err)
		}
		subst[item] = append(before[item], path)
	}
	for _, item := range sortedInts(before) {
		if _, ok := subst[item]; !ok {
			subst[item] = append(before[item], "") // the archive as it was
		}
	}
	return subst, nil
}

func sortedInts[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// substituteArgs rebuilds the argument words with substituted inputs.
func substituteArgs(line *LinkLine, subst map[int][]string) []string {
	var out []string
	for i, it := range line.Items {
		words := line.Args[it.Index : it.Index+it.Words]
		ps, ok := subst[i]
		if !ok {
			out = append(out, words...)
			continue
		}
		for _, p := range ps {
			if p == "" {
				out = append(out, words...)
			} else {
				out = append(out, p)
			}
		}
	}
	return out
}

func usesResponseFile(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "@") {
			return true
		}
	}
	return false
}

// explainMissingBody adds to an AD error about a function without a body
// where the definition the program uses comes from: an input without
// bitcode (overriding, maybe, a weak definition that has bitcode), a
// --defsym, or nothing the link defines with bitcode.
func explainMissingBody(err error, inputs []*Input, view *symbolView) error {
	var adErr *ad.Error
	if !errors.As(err, &adErr) || adErr.Callee == "" {
		return err
	}
	callee := adErr.Callee
	explain := func(format string, args ...interface{}) error {
		adErr.Msg += "; " + fmt.Sprintf(format, args...)
		return err
	}
	if strings.HasPrefix(callee, "llvm.") {
		// An intrinsic: LLVM's own operation, never a symbol of the link.
		return explain("'%s' is an LLVM intrinsic (a target's instruction: compile without the flag or code that makes it, or give the calling function a custom derivative)", callee)
	}
	if rhs, ok := view.rules.defsym[callee]; ok && rhs == "" {
		return explain("the link sets '%s' with --defsym to an address, not to a function with bitcode", callee)
	}
	if w := view.winner[callee]; w != nil && w.Bitcode == nil && w.Err != nil {
		return explain("'%s' is defined in %s, whose embedded bitcode cannot be read: %v", callee, w.Origin, w.Err)
	}
	if w := view.winner[callee]; w != nil && w.Bitcode == nil {
		var overridden []string
		for _, in := range inputs {
			if in == w || in.Bitcode == nil {
				continue
			}
			for _, s := range nativeSyms(in) {
				if s.defined && s.name == callee {
					overridden = append(overridden, in.Origin)
				}
			}
		}
		what := fmt.Sprintf("'%s' is defined in %s, which has no embedded bitcode", callee, w.Origin)
		if len(overridden) > 0 {
			what = fmt.Sprintf("the program runs the definition of '%s' in %s (it overrides the one in %s), which has no embedded bitcode", callee, w.Origin, strings.Join(overridden, ", "))
		}
		return explain("%s (compile it with gozyme-cc, or give it a custom derivative)", what)
	}
	for _, in := range inputs {
		if in.Bitcode != nil {
			continue
		}
		for _, s := range nativeSyms(in) {
			if s.defined && s.name == callee {
				return explain("'%s' is defined in %s, which has no embedded bitcode (compile it with gozyme-cc, or give it a custom derivative)", callee, in.Origin)
			}
		}
	}
	return explain("no object of this link defines '%s' with bitcode (it comes from a shared library or is not defined)", callee)
}
