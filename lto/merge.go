package lto

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
)

// mergeModules writes the job's modules, each with its edits applied, and
// links them into one (llvm-link: static functions renamed apart, linkonce
// definitions merged, constructors appended) in link order, so that of two
// equal inline definitions the one the linker keeps comes first. It
// returns the file holding the result.
func mergeModules(ctx context.Context, dir string, job RewriteJob) (string, error) {
	paths := make([]string, len(job.Modules))
	for i, m := range job.Modules {
		p, err := writeModule(ctx, dir, i, m)
		if err != nil {
			return "", err
		}
		paths[i] = p
	}
	if len(paths) == 1 {
		return paths[0], nil
	}
	out := filepath.Join(dir, "merged.bc")
	args := append([]string{"-o", out}, paths...)
	err := timeStage(ctx, "merge", func() error { _, err := toolchains.Run(ctx, "llvm-link", args...); return err })
	if err != nil {
		if cerr := corruptModule(ctx, dir, job); cerr != nil {
			return "", cerr
		}
		// Name the inputs, not gozyme's temporary files.
		msg := err.Error()
		for i, m := range job.Modules {
			msg = strings.ReplaceAll(msg, paths[i], m.Origin)
		}
		return "", fmt.Errorf("%s: merging with the modules it uses: %s", job.Origin(), msg)
	}
	return out, nil
}

// writeModule writes module i's bitcode into dir and applies its edits
// (through its text: llvm-dis, the edits, and the .ll file llvm-link and
// opt read). It returns the file to merge.
func writeModule(ctx context.Context, dir string, i int, m Module) (string, error) {
	bc := filepath.Join(dir, fmt.Sprintf("module%03d.bc", i))
	if err := os.WriteFile(bc, m.Bitcode, 0o644); err != nil {
		return "", err
	}
	if len(m.Discard) == 0 && len(m.Rename) == 0 && !m.OptNone {
		return bc, nil
	}
	out, err := toolchains.Run(ctx, "llvm-dis", "-o", "-", bc)
	if err != nil {
		return "", fmt.Errorf("%s: corrupt embedded bitcode: %s", m.Origin, strings.ReplaceAll(err.Error(), bc, m.Origin))
	}
	text := string(out)
	if text, _, err = irutil.DiscardDefinitions(text, m.Discard); err != nil {
		return "", fmt.Errorf("%s: leaving out the definitions the linker does not use: %v", m.Origin, err)
	}
	if text, err = irutil.RenameGlobals(text, m.Rename); err != nil {
		return "", fmt.Errorf("%s: redirecting references as --wrap/--defsym do: %v", m.Origin, err)
	}
	if m.OptNone {
		text, _ = irutil.StripOptNone(text)
	}
	ll := filepath.Join(dir, fmt.Sprintf("module%03d.ll", i))
	if err := os.WriteFile(ll, []byte(text), 0o644); err != nil {
		return "", err
	}
	return ll, nil
}

// corruptModule names the first module of the job whose bitcode LLVM
// cannot read (llvm-nm, which reads the module-level records as a lazy
// load does), nil when each reads. The link's symbols come from the
// bitcode's symbol table (irsymtab.go), which says nothing of the rest of
// the module: a tool that failed on the job's input asks this, so that a
// damaged object is named as such.
func corruptModule(ctx context.Context, dir string, job RewriteJob) error {
	for i, m := range job.Modules {
		bc := filepath.Join(dir, fmt.Sprintf("module%03d.bc", i))
		if err := os.WriteFile(bc, m.Bitcode, 0o644); err != nil {
			return err
		}
		_, err := toolchains.Run(ctx, "llvm-nm", bc)
		var te *toolchains.ToolError
		if err == nil || !errors.As(err, &te) {
			continue
		}
		msg := strings.TrimSpace(strings.SplitN(te.Stderr, "\n", 2)[0])
		for _, tool := range []string{te.Argv[0], filepath.Base(te.Argv[0])} {
			msg = strings.TrimPrefix(msg, tool+": error: ")
		}
		msg = strings.TrimPrefix(msg, bc+": ")
		return fmt.Errorf("%s: corrupt embedded bitcode: %s", m.Origin, strings.ReplaceAll(msg, bc, m.Origin))
	}
	return nil
}

// internalError turns a panic in the link pipeline into an error asking
// for a report (the stack only with GOZYME_VERBOSE).
func internalError(ctx context.Context, origin string, p interface{}) error {
	msg := fmt.Sprintf("%s: internal error: %v; please report this to the gozyme developers with the objects of this link", origin, p)
	if toolchains.ConfigOf(ctx).Verbose {
		msg += "\n" + string(debug.Stack())
	}
	return fmt.Errorf("%s", msg)
}
