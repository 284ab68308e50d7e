package adfuzz

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gozyme/gozyme/tests/internal/sources"
)

// binDir holds gozyme-cc, gozyme-c++ and gozyme-ld built by TestMain from
// the checkout at repoRoot (both empty under -short, where the end-to-end
// test is skipped).
var binDir, repoRoot string

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	if testing.Short() {
		return m.Run()
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		fmt.Fprintln(os.Stderr, "adfuzz:", err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "gozyme-adfuzz-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "adfuzz:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	// Links reuse what they cached only within this run, never the
	// user's link cache.
	os.Setenv("GOZYME_CACHE", filepath.Join(tmp, "link-cache"))
	build := exec.Command("go", "build", "-buildvcs=false", "-o", tmp+string(filepath.Separator), "./cmd/...")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "adfuzz: go build ./cmd/... failed: %v\n%s", err, out)
		return 1
	}
	binDir, repoRoot = tmp, root
	return m.Run()
}

// fixedSeed is a program of the end-to-end set: the seed's program with
// exactly the given knobs (plus libm).
type fixedSeed struct {
	seed  uint64
	knobs string
	modes string // "": the seed's own modes
}

func (f fixedSeed) program(t *testing.T) Program {
	ks, err := ParseKnobs(f.knobs)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ParseModes(f.modes)
	if err != nil {
		t.Fatal(err)
	}
	return Generate(f.seed, Options{Knobs: ks, Only: true, Modes: ms})
}

// passingSeeds are programs that pass at -O0..-O3 today (measured with
// `fuzzad -knobs K -only -seed 1 -n 4`), together using every knob that has
// a passing program and every mode.
var passingSeeds = []fixedSeed{
	{1, "struct", ""}, {3, "struct", ""}, {1, "struct", "reverse"},
	{4, "conststruct", ""},
	{1, "datacount", ""}, {2, "datacount", ""}, {4, "datacount", ""}, {2, "datacount", "batch"},
	{1, "nested", ""}, {2, "nested", ""}, {4, "nested", ""}, {1, "nested", "reverse"},
	{1, "inplace", ""}, {2, "inplace", ""}, {3, "inplace", ""}, {4, "inplace", ""}, {2, "inplace", "reverse,batch"},
	{2, "memcpy", ""}, {3, "memcpy", ""}, {4, "memcpy", ""},
	{1, "localconst", ""},
	// Forward batches of std::copy under run-time activity (a lane's
	// alias test once named a call operand with its attributes).
	{5, "conststruct,fnptr,cxx", "split,batch"},
	{4, "intcopy", ""}, {1, "realloc", ""}, {3, "recursion", ""}, {2, "fnptr", ""}, {1, "cxx", ""},
	// Pointer pairs moved as <2 x double*> at -O2/-O3 (swaps, copies,
	// offsets, selects, rotations; x double-buffered with a scratch array;
	// std::swap and moves of std::vectors).
	{1, "ptrswap", ""}, {3, "ptrswap", ""}, {2, "ptrswap", "reverse,batch"}, {1, "ptrswap,cxx", ""},
}

// knownFailingKnobs are the knobs with no program passing at every level
// (none today; `make fuzz-ad FUZZ_ARGS="-knobs K -only"` shows them).
var knownFailingKnobs = []Knob{}

func TestPassingSeedsCoverEveryKnob(t *testing.T) {
	var have KnobSet
	var modes ModeSet
	for _, f := range passingSeeds {
		p := f.program(t)
		have |= p.Knobs
		modes |= p.Modes
	}
	for _, k := range knownFailingKnobs {
		have = have.With(k)
	}
	for _, k := range AllKnobs() {
		if !have.Has(k) {
			t.Errorf("no seed in passingSeeds uses knob %s", k)
		}
	}
	for _, m := range AllModes() {
		if !modes.Has(m) {
			t.Errorf("no seed in passingSeeds uses mode %s", m)
		}
	}
}

// TestGeneratedProgramsPass builds each of passingSeeds with gozyme-cc /
// gozyme-c++ at -O0..-O3 and runs it: every derivative must match its
// central difference and every primal value plain clang's.
func TestGeneratedProgramsPass(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds with the gozyme commands (skipped with -short)")
	}
	if _, err := exec.LookPath("clang-14"); err != nil {
		t.Skip("clang-14 not installed")
	}
	if err := sources.Read(repoRoot); err != nil {
		t.Fatal(err)
	}
	for _, f := range passingSeeds {
		f := f
		t.Run(fmt.Sprintf("%s-seed%d", strings.ReplaceAll(f.knobs, ",", "+"), f.seed), func(t *testing.T) {
			t.Parallel()
			p := f.program(t)
			cfg := &Config{Bin: binDir, Levels: []string{"0", "1", "2", "3"}, Work: t.TempDir(),
				RunTimeout: 2 * time.Minute, BuildTimeout: 5 * time.Minute, Gen: Options{Knobs: p.Knobs, Only: true, Modes: p.Modes}}
			for _, o := range cfg.RunSeed(context.Background(), f.seed) {
				if o.Class != Pass {
					t.Errorf("seed %d -O%s: %s: %s\nknobs %s, modes %s\nbuild:\n%s\nrun:\n%s\nprogram:\n%s",
						f.seed, o.Level, o.Class, o.Detail, o.Program.Knobs, o.Program.Modes, tail(o.BuildLog), tail(o.RunLog), o.Program.Source)
				}
			}
		})
	}
}

// tail is the end of a long log.
func tail(s string) string {
	if len(s) > 4000 {
		return "..." + s[len(s)-4000:]
	}
	return s
}
