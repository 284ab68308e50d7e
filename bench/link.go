package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gozyme/gozyme/bench/internal/workload"
)

// Link-time benchmarks (issue "whole-program AD at link time"): the cost of
// a link without Enzyme calls next to a plain clang-14 link of the same
// objects, and for a link with several independent roots, the time of each
// stage and the speed-up of differentiating the groups in parallel; and the
// link of one huge straight-line function at several sizes.

const linkRuns = 21

// linkBench builds the generated projects in tmp and returns a markdown
// report; its charts go to outDir.
func linkBench(root, tmp, outDir string) (string, error) {
	cc, err := filepath.Abs(filepath.Join(root, "bin", "gozyme-cc"))
	if err != nil {
		return "", err
	}
	var b strings.Builder

	// 1. No roots: 40 translation units of ordinary code.
	plainDir := filepath.Join(tmp, "link-noroots")
	var objs []string
	for i := 0; i < 40; i++ {
		src := fmt.Sprintf(`double f%d(double *x, int n) { double s = 0; for (int i = 0; i < n; i++) s += x[i] * %d.5; return s; }
`, i, i)
		if i == 0 {
			src += "#include <stdio.h>\nint main(void) { double x[3] = {1, 2, 3}; printf(\"%g\\n\", f0(x, 3)); return 0; }\n"
		}
		obj, err := compile(cc, plainDir, fmt.Sprintf("tu%02d", i), src)
		if err != nil {
			return "", err
		}
		objs = append(objs, obj)
	}
	clang, err := exec.LookPath("clang-14")
	if err != nil {
		return "", err
	}
	// Alternate the two links and keep each one's fastest run, by the
	// clock and by CPU time (user + system of the processes), which a
	// busy machine disturbs less.
	var tg, tc, cg, ccpu float64
	for i := 0; i < linkRuns; i++ {
		w, c, err := timedRun(cc, append(objs, "-o", filepath.Join(plainDir, "app-gozyme"))...)
		if err != nil {
			return "", err
		}
		tg, cg = minPos(tg, w), minPos(cg, c)
		if w, c, err = timedRun(clang, append(objs, "-o", filepath.Join(plainDir, "app-clang"))...); err != nil {
			return "", err
		}
		tc, ccpu = minPos(tc, w), minPos(ccpu, c)
	}
	fmt.Fprintf(&b, "\n### Link without Enzyme calls (40 fat objects)\n\n| linker | time | CPU time | ratio (time) | ratio (CPU) |\n|---|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| clang-14 | %s | %s | 1.00x | 1.00x |\n| gozyme-cc (scan + plain link) | %s | %s | %.2fx | %.2fx (target ≤ 1.10x) |\n",
		seconds(tc), seconds(ccpu), seconds(tg), seconds(cg), tg/tc, cg/ccpu)

	// 2. Four independent roots, each in its own object with its own model.
	rootDir := filepath.Join(tmp, "link-roots")
	objs = nil
	mainSrc := "#include <stdio.h>\n"
	for i := 0; i < 4; i++ {
		src := fmt.Sprintf(`#include <math.h>
double __enzyme_autodiff(void *, ...);
static double model(double x) {
	double a = x;
	for (int k = 0; k < 50; k++) a = sin(a) * %d.25 + cos(a * x) + exp(-a * a) * tanh(x + k);
	return a;
}
double grad%d(double x) { return __enzyme_autodiff((void *)model, x); }
`, i+1, i)
		obj, err := compile(cc, rootDir, fmt.Sprintf("root%d", i), src)
		if err != nil {
			return "", err
		}
		objs = append(objs, obj)
		mainSrc += fmt.Sprintf("double grad%d(double);\n", i)
	}
	mainSrc += "int main(void) { printf(\"%g\\n\", grad0(0.5) + grad1(0.5) + grad2(0.5) + grad3(0.5)); return 0; }\n"
	obj, err := compile(cc, rootDir, "main", mainSrc)
	if err != nil {
		return "", err
	}
	objs = append(objs, obj)
	fmt.Fprintf(&b, "\n### Link with 4 independent roots: stage times (summed over groups)\n\n| GOZYME_JOBS | gather | merge | optimize | differentiate | codegen | native link | total |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	totals := map[string]float64{}
	for _, jobs := range []string{"1", "2"} {
		best := map[string]float64{}
		for r := 0; r < 3; r++ {
			st, err := stageTimes(cc, jobs, append(objs, "-lm", "-o", filepath.Join(rootDir, "app"))...)
			if err != nil {
				return "", err
			}
			if best["total"] == 0 || st["total"] < best["total"] {
				best = st
			}
		}
		totals[jobs] = best["total"]
		fmt.Fprintf(&b, "| %s |", jobs)
		for _, s := range []string{"gather", "merge", "optimize", "differentiate", "codegen", "native link", "total"} {
			fmt.Fprintf(&b, " %s |", seconds(best[s]))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nParallel speed-up of the link (GOZYME_JOBS=1 over 2): %.2fx\n", totals["1"]/totals["2"])

	// Relinking the same objects: every rewrite comes from the link cache.
	relink, err := relinkBench(cc, clang, rootDir, objs)
	if err != nil {
		return "", err
	}
	b.WriteString(relink)

	// 3. One function of N straight-line statements.
	straight, err := straightLineBench(cc, tmp, outDir)
	if err != nil {
		return "", err
	}
	b.WriteString(straight)
	return b.String(), nil
}

func compile(cc, dir, name, src string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	c := filepath.Join(dir, name+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		return "", err
	}
	obj := filepath.Join(dir, name+".o")
	return obj, workload.RunQuiet(nil, cc, "-O2", "-c", c, "-o", obj)
}

// timedRun runs a command and returns its wall-clock and CPU time.
func timedRun(name string, args ...string) (wall, cpu float64, err error) {
	return timedRunEnv(nil, name, args...)
}

// timedRunEnv is timedRun with env added to the environment. The CPU time
// is the command's and its descendants' (user + system).
func timedRunEnv(env []string, name string, args ...string) (wall, cpu float64, err error) {
	cmd := exec.Command(name, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, 0, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	wall = time.Since(start).Seconds()
	cpu = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	return wall, cpu, nil
}

// minPos is the smaller of a and b, where a == 0 means none yet.
func minPos(a, b float64) float64 {
	if a == 0 || b < a {
		return b
	}
	return a
}

// relinkBench links objs once to fill a fresh link cache, then times
// relinks with nothing changed (the fast path: the real linker runs on the
// recorded line, lto/relink.go) next to clang-14 links of the same objects
// (their Enzyme calls left unresolved), alternating, fastest of linkRuns
// each, by the clock and by CPU time.
func relinkBench(cc, clang, dir string, objs []string) (string, error) {
	cache := filepath.Join(dir, "link-cache")
	os.RemoveAll(cache)
	env := []string{"GOZYME_CACHE=" + cache}
	args := append(append([]string(nil), objs...), "-lm", "-o", filepath.Join(dir, "app-relink"))
	if err := workload.RunQuiet(env, cc, args...); err != nil {
		return "", err
	}
	var tg, tc, cg, ccpu float64
	for i := 0; i < linkRuns; i++ {
		w, c, err := timedRunEnv(env, cc, args...)
		if err != nil {
			return "", err
		}
		tg, cg = minPos(tg, w), minPos(cg, c)
		w, c, err = timedRun(clang, append(append([]string(nil), objs...), "-lm", "-Wl,--unresolved-symbols=ignore-all", "-o", filepath.Join(dir, "app-clang"))...)
		if err != nil {
			return "", err
		}
		tc, ccpu = minPos(tc, w), minPos(ccpu, c)
	}
	return fmt.Sprintf("\n### Relink with nothing changed (4 roots, link cache warm)\n\n| linker | time | CPU time | ratio (time) | ratio (CPU) |\n|---|---:|---:|---:|---:|\n| clang-14 | %s | %s | 1.00x | 1.00x |\n| gozyme-cc | %s | %s | %.2fx | %.2fx (target ≤ 1.10x) |\n",
		seconds(tc), seconds(ccpu), seconds(tg), seconds(cg), tg/tc, cg/ccpu), nil
}

// stageTimes links with GOZYME_TIMES=1 and parses gozyme-ld's stage lines.
func stageTimes(cc, jobs string, args ...string) (map[string]float64, error) {
	cmd := exec.Command(cc, args...)
	cmd.Env = append(os.Environ(), "GOZYME_TIMES=1", "GOZYME_JOBS="+jobs, "GOZYME_CACHE=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("link: %v\n%s", err, stderr.String())
	}
	out := map[string]float64{}
	for _, l := range strings.Split(stderr.String(), "\n") {
		rest, ok := strings.CutPrefix(l, "gozyme-ld: time ")
		if !ok {
			continue
		}
		i := strings.LastIndexByte(rest, ' ')
		v, err := strconv.ParseFloat(rest[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("bad timing line %q", l)
		}
		out[rest[:i]] = v
	}
	if out["total"] == 0 {
		return nil, fmt.Errorf("gozyme-ld printed no timings:\n%s", stderr.String())
	}
	return out, nil
}
