package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gozyme/gozyme/bench/internal/workload"
)

// Workloads (issue "Benchmarks: gradients against hand-written code, ADOL-C
// and finite differences"): each bench/workloads/<name>/ holds C sources
// (main.c with the primal, the gozyme gradient and a hand-written one) and
// adolc.cpp (the same objective on ADOL-C's adoubles). Each is built twice:
// as gozyme does it (AD after optimization) and with GOZYME_AD_STAGE=pre
// (AD before optimization), then run on one core. The C harness
// (bench/workloads/harness.h) checks every gradient against the hand-written
// one before timing it.

// caseResult is every method measured for one case; timing is one method.
type (
	caseResult = workload.Case
	timing     = workload.Timing
)

// workloadBench builds and runs every workload; dir is a scratch directory.
func workloadBench(root, dir string, only []string) ([]*caseResult, error) {
	cc, err := filepath.Abs(filepath.Join(root, "bin", "gozyme-cc"))
	if err != nil {
		return nil, err
	}
	srcs, err := workload.Dirs(root)
	if err != nil {
		return nil, err
	}
	var all []*caseResult
	for _, src := range srcs {
		name := filepath.Base(src)
		if len(only) > 0 && !contains(only, name) {
			continue
		}
		work := filepath.Join(dir, "workload-"+name)
		post, pre, err := workload.Build(cc, src, work, workload.Options{})
		if err != nil {
			return nil, err
		}
		byName := map[string]*caseResult{}
		var order []*caseResult
		builds := []struct {
			exe, suffix string
			args        []string
		}{{post, "", nil}}
		if pre != "" {
			builds = append(builds, struct {
				exe, suffix string
				args        []string
			}{pre, "-pre", []string{"J"}})
		}
		for _, r := range builds {
			out, err := runPinned(work, r.exe, r.args...)
			if err != nil {
				return nil, fmt.Errorf("workload %s: %v\n%s", name, err, out)
			}
			if err := workload.Parse(name, out, r.suffix, byName, &order); err != nil {
				return nil, err
			}
		}
		for _, c := range order {
			c.Client = workload.IsClientStyle(src)
		}
		all = append(all, order...)
	}
	return all, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// runPinned runs exe in dir (ADOL-C writes its tapes there) on core 0.
func runPinned(dir, exe string, args ...string) ([]byte, error) {
	cmd := exec.Command(exe, args...)
	if ts, err := exec.LookPath("taskset"); err == nil {
		cmd = exec.Command(ts, append([]string{"-c", "0", exe}, args...)...)
	}
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	return out.Bytes(), err
}

// adbench are the workloads from ADBench, whose gradients have the same
// complexity before and after optimization (norm's does not).
var adbench = []string{"gmm", "lstm", "ba"}

// preOverPost is the geometric mean of J-pre/J over the cases with both,
// of the workloads named (all when none are).
func preOverPost(cs []*caseResult, workloads ...string) (float64, int) {
	sum, n := 0.0, 0
	for _, c := range cs {
		if len(workloads) > 0 && !contains(workloads, c.Workload) {
			continue
		}
		post, ok1 := c.Times["J"]
		pre, ok2 := c.Times["J-pre"]
		if ok1 && ok2 {
			sum += math.Log(pre.Seconds / post.Seconds)
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return math.Exp(sum / float64(n)), n
}

// formatWorkloads is the markdown report of the workloads.
func formatWorkloads(cs []*caseResult) string {
	var b strings.Builder
	b.WriteString("\n### Workloads: gozyme (J) against hand-written, ADOL-C 2.7.2 and central differences\n\n")
	b.WriteString("Every gradient was checked against the hand-written one before it was timed (relative error ≤ 1e-8; ≤ 1e-5 for central differences). ")
	b.WriteString("One core (taskset -c 0), each time the minimum per call over 5 batches of ≥ 0.5 s. ADOL-C taped once (column *taping*, one run), timed on the tape (zos_forward + fos_reverse).\n\n")
	b.WriteString("| case | F | J | J/F | hand/F | J/hand | ADOL-C/F | ADOL-C taping | FD/F | J before opt. | before/after |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Name,
			workload.TimeOf(c, "F"), workload.TimeOf(c, "J"), workload.Ratio(c, "J", "F"), workload.Ratio(c, "hand", "F"), workload.Ratio(c, "J", "hand"),
			workload.Ratio(c, "adolc", "F"), workload.TimeOf(c, "adolc-tape"), workload.Ratio(c, "fd", "F"), workload.TimeOf(c, "J-pre"), workload.Ratio(c, "J-pre", "J"))
	}
	return b.String() + workload.FormatClientGoals(cs)
}

// summarizeWorkloads is the short stdout summary: the targets, met or not.
func summarizeWorkloads(cs []*caseResult) string {
	return strings.Join(targetLines(cs), "\n") + "\n"
}

// formatTargets is the report's section on the targets: the same
// lines as the stdout summary, as a markdown list.
func formatTargets(cs []*caseResult) string {
	lines := targetLines(cs)
	if len(lines) == 0 {
		return ""
	}
	return "\n### Targets\n\n- " + strings.Join(lines, "\n- ") + "\n"
}

// targetLines says, a line each, which gradients were wrong, whether each
// GMM and LSTM case meets J/hand ≤ 1.2 (and by how much it misses), ADOL-C
// against J, and the before/after-optimization geometric mean (the
// report's one statement of it), with the norm cases where there are any.
func targetLines(cs []*caseResult) []string {
	var out []string
	for _, c := range cs {
		wrong := make([]string, 0, len(c.Wrong))
		for m := range c.Wrong {
			wrong = append(wrong, m)
		}
		sort.Strings(wrong)
		for _, m := range wrong {
			out = append(out, fmt.Sprintf("WRONG gradient: %s %s (relative error %.2g), not timed", c.Name, m, c.Wrong[m]))
		}
		j, okJ := c.Times["J"]
		h, okH := c.Times["hand"]
		if goal := workload.CHandGoal(c.Workload); goal > 0 && okJ && okH {
			line := fmt.Sprintf("%s: J/hand %.2f (target ≤ %.2g: %s)", c.Name, j.Seconds/h.Seconds, goal, workload.Verdict(j.Seconds/h.Seconds, goal))
			if a, ok := c.Times["adolc"]; ok {
				line += fmt.Sprintf(", ADOL-C/J %.1f", a.Seconds/j.Seconds)
			}
			out = append(out, line)
		}
	}
	out = append(out, workload.ClientTargetLines(cs)...)
	if g, n := preOverPost(cs, adbench...); n > 0 {
		line := fmt.Sprintf("AD before/after optimization, geometric mean over %d GMM, LSTM and BA cases: %.2fx (the seed reports 4.2x for Enzyme)", n, g)
		if g2, n2 := preOverPost(cs); n2 > n {
			line += fmt.Sprintf("; with the norm cases, where AD before optimization is O(n^2): %.2fx over %d cases", g2, n2)
		}
		out = append(out, line)
	}
	return out
}
