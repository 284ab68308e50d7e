package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/bench/internal/workload"
)

// TestWorkloadGradients builds every workload the way make bench does (AD
// after optimization and, with GOZYME_AD_STAGE=pre, before) and runs each
// build's small correctness mode: the gozyme gradient and a central
// difference against the hand-written gradient, nothing timed.
func TestWorkloadGradients(t *testing.T) {
	if _, err := exec.LookPath("clang-14"); err != nil {
		t.Skip(err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	// Links reuse what they cached only within this run, never the
	// user's link cache.
	t.Setenv("GOZYME_CACHE", filepath.Join(bin, "link-cache"))
	build := exec.Command("go", "build", "-buildvcs=false", "-o", bin+string(filepath.Separator), "./cmd/...")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/...: %v\n%s", err, out)
	}
	srcs, err := workload.Dirs(root)
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no workloads found: %v", err)
	}
	for _, src := range srcs {
		t.Run(filepath.Base(src), func(t *testing.T) {
			t.Parallel() // each builds in its own directory
			trackDir(t, src)
			work := t.TempDir()
			post, pre, err := workload.Build(filepath.Join(bin, "gozyme-cc"), src, work, workload.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, exe := range []string{post, pre} {
				if exe == "" {
					continue
				}
				out, err := runPinned(work, exe, "test")
				if err != nil || strings.TrimSpace(string(out)) != "OK" {
					t.Errorf("%s test: %v\n%s", filepath.Base(exe), err, out)
				}
			}
		})
	}
}

// trackDir reads a workload's sources, the shared harness and gozyme's Go
// sources so that go test's cache notices when they change: gozyme-cc is
// built and run in subprocesses, which the cache does not see.
func trackDir(t *testing.T, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	root := filepath.Join(dir, "..", "..", "..")
	gosrc, _ := filepath.Glob(filepath.Join(root, "*", "*.go"))
	// cmd/*, ad/typeanalysis, toolchains/flang, ... (and tests/*: more than
	// needed, never less)
	nested, _ := filepath.Glob(filepath.Join(root, "*", "*", "*.go"))
	files = append(append(append(files, gosrc...), nested...), filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum"),
		filepath.Join(dir, "..", "harness.h"), filepath.Join(dir, "..", "harness.hpp"), filepath.Join(dir, "..", "..", "kernels", "timing.h"))
	for _, f := range files {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTargetLines checks the report's verdicts on the targets from
// made-up timings: J/hand 1.8 misses 1.2 by 1.5x, 1.1 meets it, a wrong
// gradient is named, and the before/after mean covers the ADBench cases,
// then the norm cases too. The markdown table does not repeat the mean.
func TestTargetLines(t *testing.T) {
	cs := []*caseResult{
		{Workload: "gmm", Name: "gmm(d=2,k=5)", Times: map[string]timing{"J": {Seconds: 1.8}, "hand": {Seconds: 1}, "adolc": {Seconds: 9}, "J-pre": {Seconds: 3.6}}},
		{Workload: "lstm", Name: "lstm(l=2,c=1024)", Times: map[string]timing{"J": {Seconds: 1.1}, "hand": {Seconds: 1}, "J-pre": {Seconds: 8.8}}},
		{Workload: "ba", Name: "ba(m=10)", Times: map[string]timing{"J": {Seconds: 2}}, Wrong: map[string]float64{"adolc": 0.5}},
		{Workload: "norm", Name: "norm(n=1000)", Times: map[string]timing{"J": {Seconds: 1}, "J-pre": {Seconds: 32}}},
	}
	want := []string{
		"gmm(d=2,k=5): J/hand 1.80 (target ≤ 1.2: MISSED by 1.50x), ADOL-C/J 5.0",
		"lstm(l=2,c=1024): J/hand 1.10 (target ≤ 1.2: met)",
		"WRONG gradient: ba(m=10) adolc (relative error 0.5), not timed",
		"AD before/after optimization, geometric mean over 2 GMM, LSTM and BA cases: 4.00x (the seed reports 4.2x for Enzyme); with the norm cases, where AD before optimization is O(n^2): 8.00x over 3 cases",
	}
	got := targetLines(cs)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("targetLines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if md := formatTargets(cs); !strings.HasPrefix(md, "\n### Targets\n\n- gmm(d=2,k=5)") {
		t.Fatalf("formatTargets: %q", md)
	}
	if md := formatWorkloads(cs); strings.Contains(md, "geometric mean") {
		t.Fatalf("formatWorkloads repeats the mean: %q", md)
	}
}
