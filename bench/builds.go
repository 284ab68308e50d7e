package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gozyme/gozyme/bench/internal/workload"
)

// The build cost of client programs (issue 22): CPU time (user + system of
// every process), wall time and peak memory (of the largest process) of
// building a client program, compile and link, with gozyme-c++ (link cache
// off) next to clang++-14, goal ≤ 1.3x in each; and with the whole module optimized and
// compiled at link time (GOZYME_CUT=off), as before the roots' cut.
// The programs: client-style workloads (their ADOL-C half compiled once by
// clang++-14, for all) and bench/builds/gmmjson.cpp, a GMM client reading
// its input with nlohmann/json.

const buildRuns = 3

var buildPrograms = []struct{ name, src string }{
	{"gmm-cxx", "bench/workloads/gmm-cxx/main.cpp"},
	{"lstm-cxx", "bench/workloads/lstm-cxx/main.cpp"},
	{"ba-cxx", "bench/workloads/ba-cxx/main.cpp"},
	{"gmm-json", "bench/builds/gmmjson.cpp"},
}

// buildCost is one build's CPU and wall seconds and peak memory (MiB).
type buildCost struct{ cpu, wall, peak float64 }

// measured runs a command and adds its CPU time, wall time and peak memory
// to c.
func (c *buildCost) measured(env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	c.wall += time.Since(start).Seconds()
	c.cpu += (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		c.peak = max(c.peak, float64(ru.Maxrss)/1024)
	}
	return nil
}

// clientBuildRuns is how many times clientBuildBench builds each program
// each way; it reports the least of each measure.
const clientBuildRuns = 5

// clientBuildBench builds each program clientBuildRuns times each way, the
// ways taking turns (other work on the machine weighs on all alike), and
// reports the least CPU time, wall time and peak memory of each, the
// ratios against the goal (goalRatio).
func clientBuildBench(root, tmp string) (string, error) {
	cxx, err := exec.LookPath("clang++-14")
	if err != nil {
		return "", err
	}
	gozyme, err := filepath.Abs(filepath.Join(root, "bin", "gozyme-c++"))
	if err != nil {
		return "", err
	}
	dir := filepath.Join(tmp, "client-builds")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("\n### Client program builds: compile + link, CPU time, wall time and peak memory (goal ≤ 1.3x clang++-14)\n\n")
	fmt.Fprintf(&b, "Least of %d builds each; CPU time of every process, wall time of the two commands one after another, peak memory of the largest process.\n\n", clientBuildRuns)
	b.WriteString("| program | clang++-14 CPU, wall, peak | gozyme-c++ CPU, wall, peak | ratio CPU | ratio wall | ratio peak | whole module (GOZYME_CUT=off) CPU, wall | ratio CPU | ratio wall |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range buildPrograms {
		src := filepath.Join(root, p.src)
		flags := append(append([]string{}, workload.ClientFlags...), "-I", filepath.Dir(src))
		var extra []string // the ADOL-C half of a workload, the same for all
		if adolc := filepath.Join(filepath.Dir(src), "adolc.cpp"); fileExists(adolc) && p.name != "gmm-json" {
			obj := filepath.Join(dir, p.name+"-adolc.o")
			if err := workload.RunQuiet(nil, cxx, append(append([]string{}, flags...), "-c", adolc, "-o", obj)...); err != nil {
				return "", err
			}
			extra = []string{obj, "-ladolc"}
		}
		build := func(cc string, linkFlags []string, env ...string) (buildCost, error) {
			var c buildCost
			exe := filepath.Join(dir, p.name)
			obj := exe + ".o"
			if err := c.measured(env, cc, append(append([]string{}, flags...), "-c", src, "-o", obj)...); err != nil {
				return c, err
			}
			link := append(append(append(append([]string{}, flags...), obj), extra...), linkFlags...)
			err := c.measured(env, cc, append(link, "-o", exe, "-lm")...)
			return c, err
		}
		ways := []struct {
			cc        string
			linkFlags []string
			env       []string
		}{
			{cxx, []string{"-Wl,--unresolved-symbols=ignore-all"}, nil}, // its Enzyme calls unresolved
			{gozyme, nil, []string{"GOZYME_CACHE=off"}},
			{gozyme, nil, []string{"GOZYME_CACHE=off", "GOZYME_CUT=off"}},
		}
		var costs [3]buildCost
		for r := 0; r < clientBuildRuns; r++ {
			for i, w := range ways {
				c, err := build(w.cc, w.linkFlags, w.env...)
				if err != nil {
					return "", err
				}
				costs[i] = c.least(costs[i], r == 0)
			}
		}
		clang, cut, whole := costs[0], costs[1], costs[2]
		fmt.Fprintf(&b, "| %s | %s, %s, %.0f MiB | %s, %s, %.0f MiB | %s | %s | %s | %s, %s | %.2fx | %.2fx |\n", p.name,
			seconds(clang.cpu), seconds(clang.wall), clang.peak, seconds(cut.cpu), seconds(cut.wall), cut.peak,
			goalRatio(cut.cpu/clang.cpu), goalRatio(cut.wall/clang.wall), goalRatio(cut.peak/clang.peak),
			seconds(whole.cpu), seconds(whole.wall), whole.cpu/clang.cpu, whole.wall/clang.wall)
	}
	return b.String(), nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
