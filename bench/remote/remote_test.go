package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildAndRun builds one small C workload with the static flags, then
// runs the generated run.sh here on it in test mode (each program checks
// its gradients and prints OK), pinned, with a short timeout. Not
// parallel: it sets GOZYME_CACHE (links reuse only what this run cached).
func TestBuildAndRun(t *testing.T) {
	cxx, err := exec.LookPath("clang++-14")
	if err != nil {
		t.Skip(err)
	}
	if lib, _ := exec.Command(cxx, "-print-file-name=libadolc.a").Output(); !filepath.IsAbs(strings.TrimSpace(string(lib))) {
		t.Skip("no libadolc.a (libadolc-dev) for a static link")
	}
	for _, tool := range []string{"lscpu", "taskset", "timeout"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(err)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	t.Setenv("GOZYME_CACHE", filepath.Join(bin, "link-cache"))
	gobuild := exec.Command("go", "build", "-buildvcs=false", "-o", bin+string(filepath.Separator), "./cmd/...")
	gobuild.Dir = root
	if out, err := gobuild.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/...: %v\n%s", err, out)
	}
	out := t.TempDir()
	if err := build(filepath.Join(bin, "gozyme-cc"), root, out, []string{"norm"}); err != nil {
		t.Fatal(err)
	}
	if file, err := exec.Command("file", filepath.Join(out, "norm", "post")).Output(); err == nil && !strings.Contains(string(file), "statically linked") {
		t.Errorf("norm/post is not statically linked: %s", file)
	}
	run := exec.Command("bash", filepath.Join(out, "run.sh"), "results.txt")
	run.Env = append(os.Environ(), "MODE=test", "ONLY=norm/post", "TIMEOUT=120")
	if msg, err := run.CombinedOutput(); err != nil {
		t.Fatalf("run.sh: %v\n%s", err, msg)
	}
	res, err := os.ReadFile(filepath.Join(out, "results.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\nCPU ", "\nPIN norm/post cpu ", "\nnorm/post OK\n", "\nnorm/post EXIT 0\n"} {
		if !strings.Contains(string(res), want) {
			t.Errorf("results lack %q:\n%s", want, res)
		}
	}
	if strings.Contains(string(res), "norm/pre") {
		t.Errorf("ONLY=norm/post ran norm/pre:\n%s", res)
	}
}

// TestReport renders a made-up results file: GMM's J/hand against 1.2 and
// its before/after ratio, a client-style workload's J/hand against 1.5
// with a wrong ADOL-C gradient, and a job that timed out.
func TestReport(t *testing.T) {
	t.Parallel()
	r, err := readResults(filepath.Join("testdata", "results.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := r.cases(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"gmm(d=2,k=5): J/hand 1.10 (goal ≤ 1.2: met), J/ADOL-C 0.11 (goal ≤ 1: met)",
		"lse(n=100): J/hand 2.00 (goal ≤ 1.5: MISSED by 1.33x)",
		"WRONG gradient: lse(n=100) adolc (relative error 0.5), not timed",
		"FAILED: norm/post: timed out",
	}
	if got := targetLines(r, cs); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("targetLines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	dir := t.TempDir()
	if err := writeReport(filepath.Join("..", ".."), filepath.Join("testdata", "results.txt"), dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "remote.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{
		"Example CPU 64-Core Processor",
		"-march=x86-64-v3 instead of -march=native",
		"| gmm(d=2,k=5) | 1.0 µs | 3.3 µs | 3.30 | 1.10 | 0.11 | 2.00 | J/hand ≤ 1.2: met; J/ADOL-C ≤ 1: met |",
		"| lse(n=100) | 1.0 µs | 2.0 µs | 2.00 | 2.00 | – | – | J/hand ≤ 1.5: MISSED by 1.33x |",
		"| norm/post | 4 | 124 |",
	} {
		if !strings.Contains(string(md), row) {
			t.Errorf("remote.md lacks %q:\n%s", row, md)
		}
	}
}
