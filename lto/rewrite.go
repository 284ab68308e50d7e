package lto

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"
)

// linkRewritten rewrites every root module, substitutes the results into
// the command line and runs the real linker, all in one temporary directory.
func linkRewritten(ctx context.Context, realLD string, args []string, line *LinkLine, roots []*Input) (int, error) {
	tmp, cleanup, err := linkTempDir()
	if err != nil {
		return 1, err
	}
	defer cleanup()

	outs, err := rewriteAll(ctx, roots, tmp)
	if err != nil {
		return 1, err
	}
	subst, err := substitutions(roots, outs, line, tmp)
	if err != nil {
		return 1, err
	}
	newArgs := substituteArgs(line, subst)
	if usesResponseFile(args) {
		rsp := filepath.Join(tmp, "link.rsp")
		var b strings.Builder
		for _, a := range newArgs {
			b.WriteString(quoteRsp(a))
			b.WriteByte('\n')
		}
		if err := os.WriteFile(rsp, []byte(b.String()), 0o644); err != nil {
			return 1, err
		}
		newArgs = []string{"@" + rsp}
	}
	return runLinker(realLD, newArgs)
}

// linkTempDir makes the per-link scratch directory: under
// $GOZYME_KEEP_TEMPS (kept) when set, else under the system temp dir
// (removed by cleanup).
func linkTempDir() (string, func(), error) {
	if keep := os.Getenv("GOZYME_KEEP_TEMPS"); keep != "" {
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

// rewriteAll runs RewriteObject on every root, in parallel (GOZYME_JOBS or
// GOMAXPROCS at a time). It returns the native object written for each;
// of several failures the first in link order is reported.
func rewriteAll(ctx context.Context, roots []*Input, tmp string) ([]string, error) {
	outs := make([]string, len(roots))
	errs := make([]error, len(roots))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(jobLimit())
	for i, in := range roots {
		outs[i] = filepath.Join(tmp, tempName(in)+".o")
		job := RewriteJob{
			Bitcode:  in.Bitcode,
			CC1Args:  in.CC1Args,
			Origin:   in.Origin,
			OptLevel: optLevelFor(in),
			TempDir:  tmp,
			OutPath:  outs[i],
		}
		g.Go(func() error {
			err := rewriteObject(gctx, job)
			if err != nil && gctx.Err() == nil {
				errs[i] = err // a failure of its own, not a cancellation
			}
			return err
		})
	}
	werr := g.Wait()
	if werr == nil {
		return outs, nil
	}
	for i, err := range errs {
		if err != nil {
			return nil, withOrigin(roots[i].Origin, err)
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
	return fmt.Errorf("%s: %w", origin, err)
}

// tempName is a stable name for an input's files: its argument index, and
// its member index for an archive member.
func tempName(in *Input) string {
	if in.Member != nil {
		return fmt.Sprintf("arg%03d-m%04d", in.Item, in.Member.Index)
	}
	return fmt.Sprintf("arg%03d", in.Item)
}

// optLevelFor is $GOZYME_OPT_LEVEL when set, else the compile's -O.
func optLevelFor(in *Input) string {
	if v := os.Getenv("GOZYME_OPT_LEVEL"); v != "" {
		if l, ok := optLevel("-O" + strings.TrimPrefix(v, "-O")); ok {
			return l
		}
		return v
	}
	return OptLevelFromCC1(in.CC1Args)
}

func jobLimit() int {
	if n, err := strconv.Atoi(os.Getenv("GOZYME_JOBS")); err == nil && n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// substitutions maps argument indices (LinkLine.Items) to the file that
// replaces them: the rewritten object, or a copy of the archive with its
// rewritten members replaced.
func substitutions(roots []*Input, outs []string, line *LinkLine, tmp string) (map[int]string, error) {
	subst := map[int]string{}
	archives := map[int][]int{} // item -> indices into roots
	var order []int
	for i, in := range roots {
		if in.ViaScript {
			return nil, fmt.Errorf("%s: named by linker script %s; pass it on the command line to differentiate it", in.Origin, line.Items[in.Item].Value)
		}
		if in.Member == nil {
			subst[in.Item] = outs[i]
			continue
		}
		if _, ok := archives[in.Item]; !ok {
			order = append(order, in.Item)
		}
		archives[in.Item] = append(archives[in.Item], i)
	}
	for _, item := range order {
		a := roots[archives[item][0]].Archive
		cp := &Archive{Path: a.Path, Members: a.Members}
		for _, i := range archives[item] {
			data, err := os.ReadFile(outs[i])
			if err != nil {
				return nil, fmt.Errorf("%s: %v", roots[i].Origin, err)
			}
			members, err := cp.ReplaceMember(roots[i].Member.Index, data)
			if err != nil {
				return nil, err
			}
			cp.Members = members
		}
		path := filepath.Join(tmp, fmt.Sprintf("arg%03d-%s", item, filepath.Base(a.Path)))
		if err := WriteArchiveFile(path, cp.Members); err != nil {
			return nil, fmt.Errorf("%s: writing archive copy: %v", a.Path, err)
		}
		subst[item] = path
	}
	return subst, nil
}

// substituteArgs rebuilds the argument words with substituted inputs.
func substituteArgs(line *LinkLine, subst map[int]string) []string {
	var out []string
	for i, it := range line.Items {
		if p, ok := subst[i]; ok {
			out = append(out, p)
			continue
		}
		out = append(out, line.Args[it.Index:it.Index+it.Words]...)
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
