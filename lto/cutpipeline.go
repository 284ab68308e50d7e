package lto

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/preopt"
	"github.com/gozyme/gozyme/toolchains"
)

// CutInputs is what the roots' cut of a job's module (cut.go) needs to
// know of the group's native objects.
type CutInputs struct {
	// Native are the symbols the group's native objects define.
	Native map[string]bool
	// Stubs are the Enzyme entry points and markers the native objects
	// refer to and nothing in the link defines: the native copies of the
	// owned functions call them, dead code the link must still resolve.
	Stubs []string
	// Adaptable are the stubbed entry points no native object outside
	// the group refers to: the link's object may define them as adapters
	// (cutadapter.go).
	Adaptable map[string]bool
}

// partialSection marks an object made from the roots' cut; it lists the
// owned functions with external linkage, one name a line, whose native
// definitions the link makes weak (the section is excluded from links).
const partialSection = ".gozyme.partial"

// rewriteCut runs the pipeline on the roots' cut of the merged module at
// in and marks the object. An error (a cut refused, or any failure on the
// way) leaves the caller to rewrite the whole module.
func rewriteCut(ctx context.Context, dir, in string, job RewriteJob) error {
	cdir := filepath.Join(dir, "cut")
	if err := os.Mkdir(cdir, 0o755); err != nil {
		return err
	}
	// The light pipeline's opt loads while the module is read and cut.
	var light *toolchains.Started
	if adStageLevel(job.ADStage, normalizeOptLevel(job.OptLevel)) != "0" {
		light, _ = preopt.StartLight(ctx, filepath.Join(cdir, "optimized.ll")) // nil on failure: run when cut
	}
	defer light.Cancel()
	native := func(name string) bool { return job.Cut.Native[name] }
	var owned []string
	var cut string
	var adapters map[string]string // adapter name -> entry name
	err := timeStage(ctx, "cut", func() error {
		// in is text where a module was edited before merging (writeModule:
		// optnone removed at -O0, --wrap, --defsym, discarded definitions).
		text, err := irutil.ReadText(ctx, in)
		if err != nil {
			return err
		}
		m, err := parseCutModule(string(text))
		if err != nil {
			return err
		}
		adaptable := func(name string) bool { return job.Cut.Adaptable[name] }
		if adapters, err = adaptEntries(m, adaptable); err != nil {
			return err
		}
		plan, reason := planCut(m, native)
		if reason != "" {
			return fmt.Errorf("the roots' cut is refused: %s", reason)
		}
		for _, n := range plan.ownedNames(m) {
			if _, ok := adapters[n]; !ok {
				owned = append(owned, n) // an adapter has no native definition
			}
		}
		kept, discard := cutText(m, plan)
		kept, _, err = irutil.DiscardDefinitions(kept, discard)
		if err != nil {
			return err
		}
		kept = irutil.DropUnusedDeclarations(kept)
		if toolchains.ConfigOf(ctx).Verbose {
			fmt.Fprintf(os.Stderr, "gozyme: %s: the roots' cut keeps %d of %d definitions, %d owned, %d entry adapters\n", job.Origin(), len(plan.keep), countDefinitions(m), len(plan.owned), len(adapters))
		}
		cut = filepath.Join(cdir, "cut.ll")
		return os.WriteFile(cut, []byte(kept), 0o644)
	})
	if err != nil {
		return err
	}
	ownedSet := map[string]bool{}
	for _, n := range owned {
		ownedSet[n] = true
	}
	trim := func(post string) error {
		return timeStage(ctx, "cut", func() error { return trimFile(post, ownedSet, native, job.Cut.Stubs, adapters) })
	}
	if err := rewriteModule(ctx, cdir, cut, job, trim, light); err != nil {
		return err
	}
	return addSections(job.OutPath, []string{partialSection}, [][]byte{[]byte(strings.Join(owned, "\n"))}, shfExclude)
}

// trimFile is trimText on the differentiated module's file at post.
func trimFile(post string, owned map[string]bool, native func(string) bool, stubs []string, adapters map[string]string) error {
	in, err := os.Open(post)
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := os.Create(post + ".trimmed")
	if err != nil {
		return err
	}
	_, err = trimText(f, in, owned, native, stubs, adapters)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(post+".trimmed", post)
}

func countDefinitions(m *cutModule) int {
	n := 0
	for _, e := range m.order {
		if !e.decl {
			n++
		}
	}
	return n
}
