package adfuzz

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestGenerateIsDeterministic(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		a, b := Generate(seed, Options{}), Generate(seed, Options{})
		if a.Source != b.Source || a.Knobs != b.Knobs || a.Modes != b.Modes || a.CXX != b.CXX {
			t.Fatalf("seed %d: two programs differ", seed)
		}
		if c := Generate(seed+1000, Options{}); c.Source == a.Source {
			t.Fatalf("seeds %d and %d give the same program", seed, seed+1000)
		}
	}
}

// knobMarks are text every program with the knob contains.
var knobMarks = map[Knob][]string{
	KnobLibm:        {"/* libm */"},
	KnobStruct:      {"/* struct */", "struct "},
	KnobConstStruct: {"/* conststruct */", "struct cparams", "enzyme_const, &CP"},
	KnobDataCount:   {"/* datacount */"},
	KnobNested:      {"/* nested */", "for (int j = 0; j <"},
	KnobInPlace:     {"/* inplace"},
	KnobIntCopy:     {"/* intcopy */", "memcpy("},
	KnobMemcpy:      {"/* memcpy */"},
	KnobLocalConst:  {"/* localconst */"},
	KnobRealloc:     {"/* realloc */", "realloc("},
	KnobRecursion:   {"/* recursion */"},
	KnobFnPtr:       {"/* fnptr */", "fuzz_unop"},
	KnobCXX:         {"/* cxx */", "template <typename T>", "fuzz_f<double>"},
	KnobPtrSwap:     {"/* ptrswap", "double *"},
}

var modeMarks = map[Mode]string{
	ModeReverse: "__enzyme_autodiff",
	ModeForward: "__enzyme_fwddiff(",
	ModeSplit:   "__enzyme_augmentfwd(",
	ModeBatch:   "enzyme_width, ",
}

func TestEveryKnobAndModeIsProduced(t *testing.T) {
	seenK := map[Knob]int{}
	seenM := map[Mode]int{}
	for seed := uint64(1); seed <= 200; seed++ {
		p := Generate(seed, Options{})
		for _, k := range p.Knobs.Knobs() {
			seenK[k]++
			for _, m := range knobMarks[k] {
				if !strings.Contains(p.Source, m) {
					t.Errorf("seed %d has knob %s but not %q", seed, k, m)
				}
			}
		}
		for _, m := range p.Modes.Modes() {
			seenM[m]++
			if !strings.Contains(p.Source, modeMarks[m]) {
				t.Errorf("seed %d has mode %s but not %q", seed, m, modeMarks[m])
			}
		}
	}
	for _, k := range AllKnobs() {
		if seenK[k] < 10 {
			t.Errorf("knob %s appears in %d of 200 programs", k, seenK[k])
		}
	}
	for _, m := range AllModes() {
		if seenM[m] < 10 {
			t.Errorf("mode %s appears in %d of 200 programs", m, seenM[m])
		}
	}
}

func TestOptionsForceKnobsAndModes(t *testing.T) {
	for _, k := range AllKnobs() {
		want := KnobSet(0).With(KnobLibm).With(k)
		p := Generate(7, Options{Knobs: KnobSet(0).With(k), Only: true, Modes: ModeSet(0).With(ModeSplit)})
		if p.Knobs != want || p.Modes != ModeSet(0).With(ModeSplit) {
			t.Errorf("-knobs %s -only -modes split: got knobs %s, modes %s", k, p.Knobs, p.Modes)
		}
		if p.CXX != (k == KnobCXX) {
			t.Errorf("-knobs %s: C++ is %v", k, p.CXX)
		}
	}
	if p := Generate(3, Options{Knobs: KnobSet(0).With(KnobCXX), NoCXX: true}); p.CXX {
		t.Errorf("NoCXX gave a C++ program")
	}
}

func TestParseLists(t *testing.T) {
	ks, err := ParseKnobs("realloc, struct")
	if err != nil || ks != KnobSet(0).With(KnobRealloc).With(KnobStruct) {
		t.Errorf("ParseKnobs: %v %v", ks, err)
	}
	if _, err := ParseKnobs("nosuch"); err == nil {
		t.Errorf("ParseKnobs accepts an unknown knob")
	}
	ms, err := ParseModes("batch,reverse")
	if err != nil || ms != ModeSet(0).With(ModeBatch).With(ModeReverse) {
		t.Errorf("ParseModes: %v %v", ms, err)
	}
}

// sanitizersWork reports whether clang-14 links -fsanitize=address
// programs here (Debian's libclang-rt-14-dev).
func sanitizersWork(t *testing.T, dir string) bool {
	src := filepath.Join(dir, "probe.c")
	os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o644)
	err := exec.Command("clang-14", "-fsanitize=undefined,address", src, "-o", filepath.Join(dir, "probe")).Run()
	return err == nil
}

// TestProgramsAreValid compiles generated programs with plain clang (with
// the sanitizers where their runtime is installed) and runs their primal
// part, which also checks that central differences with two step sizes
// agree (the functions are smooth around the point); and compiles the whole
// program, AD calls included, to an object.
func TestProgramsAreValid(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("clang-14"); err != nil {
		t.Skip("clang-14 not installed")
	}
	dir := t.TempDir()
	sanity := sanitizersWork(t, dir)
	n := uint64(40)
	if testing.Short() {
		n = 10
	}
	cfg := &Config{Work: dir, RunTimeout: time.Minute, BuildTimeout: 2 * time.Minute, Sanity: sanity}
	for seed := uint64(1); seed <= n; seed++ {
		p := Generate(seed, Options{})
		sdir := filepath.Join(dir, strconv.FormatUint(seed, 10))
		os.MkdirAll(sdir, 0o755)
		src := filepath.Join(sdir, p.FileName())
		if err := os.WriteFile(src, []byte(p.Source), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, blog, rlog, err := cfg.reference(context.Background(), p, sdir, src); err != nil {
			t.Errorf("seed %d: %v\n%s\n%s", seed, err, blog, rlog)
			continue
		}
		cc := "clang-14"
		if p.CXX {
			cc = "clang++-14"
		}
		if out, err := exec.Command(cc, "-c", "-Wall", "-Werror", "-Wno-unused-function", "-Wno-unused-variable",
			"-Wno-unused-but-set-variable", src, "-o", filepath.Join(sdir, "prog.o")).CombinedOutput(); err != nil {
			t.Errorf("seed %d: %s -c: %v\n%s", seed, cc, err, out)
		}
	}
}
