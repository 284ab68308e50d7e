package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Workloads (issue "Benchmarks: gradients against hand-written code, ADOL-C
// and finite differences"): each bench/workloads/<name>/ holds C sources
// (main.c with the primal, the gozyme gradient and a hand-written one) and
// adolc.cpp (the same objective on ADOL-C's adoubles). Each is built twice:
// as gozyme does it (AD after optimization) and with GOZYME_AD_STAGE=pre
// (AD before optimization), then run on one core. The C harness
// (bench/workloads/harness.h) checks every gradient against the hand-written
// one before timing it.

// timing is one measured method of one case.
type timing struct {
	seconds float64
	relErr  float64 // against the hand-written gradient
}

// caseResult is every method measured for one case ("gmm(d=2,k=5)").
type caseResult struct {
	workload, name string
	times          map[string]timing  // F, J, J-pre, hand, adolc, adolc-tape, fd, rof
	wrong          map[string]float64 // methods whose gradient failed the check
	client         bool               // a client-style C++ workload (main.cpp)
}

// workloadBench builds and runs every workload; dir is a scratch directory.
func workloadBench(root, dir string, only []string) ([]*caseResult, error) {
	cc, err := filepath.Abs(filepath.Join(root, "bin", "gozyme-cc"))
	if err != nil {
		return nil, err
	}
	srcs, err := workloadDirs(root)
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
		post, pre, err := buildWorkload(cc, src, work)
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
			if err := parseWorkload(name, out, r.suffix, byName, &order); err != nil {
				return nil, err
			}
		}
		for _, c := range order {
			c.client = isClientStyle(src)
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

// workloadDirs lists the workloads, sorted: the folders of bench/workloads
// with a main.c (C, ADBench style) or a main.cpp (client-style C++).
func workloadDirs(root string) ([]string, error) {
	var dirs []string
	for _, pat := range []string{"main.c", "main.cpp"} {
		ms, err := filepath.Glob(filepath.Join(root, "bench", "workloads", "*", pat))
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			dirs = append(dirs, filepath.Dir(m))
		}
	}
	sort.Strings(dirs)
	return dirs, nil
}

// isClientStyle says whether the workload in src is client-style C++.
func isClientStyle(src string) bool {
	_, err := os.Stat(filepath.Join(src, "main.cpp"))
	return err == nil
}

// clientFlags are the flags client code written for Enzyme is built with.
var clientFlags = []string{"-O3", "-march=native", "-fno-math-errno", "-std=c++17"}

// buildWorkload compiles a workload's C sources with gozyme-cc and its
// adolc.cpp with clang++-14, and links them twice: AD after optimization
// (post) and before (pre). A client-style workload (main.cpp) is compiled
// with gozyme-c++ and clientFlags and linked once (pre is empty).
func buildWorkload(cc, src, work string) (post, pre string, err error) {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", "", err
	}
	if isClientStyle(src) {
		post, err = buildClientWorkload(filepath.Join(filepath.Dir(cc), "gozyme-c++"), src, work)
		return post, "", err
	}
	cflags := []string{"-O2", "-fno-math-errno", "-I", filepath.Dir(src)}
	var objs []string
	cs, _ := filepath.Glob(filepath.Join(src, "*.c"))
	for _, c := range cs {
		obj := filepath.Join(work, strings.TrimSuffix(filepath.Base(c), ".c")+".o")
		if err := runQuiet(nil, cc, append(append([]string{}, cflags...), "-c", c, "-o", obj)...); err != nil {
			return "", "", err
		}
		objs = append(objs, obj)
	}
	cxx, err := exec.LookPath("clang++-14")
	if err != nil {
		return "", "", err
	}
	adolc := filepath.Join(work, "adolc.o")
	if err := runQuiet(nil, cxx, append(append([]string{}, cflags...), "-c", filepath.Join(src, "adolc.cpp"), "-o", adolc)...); err != nil {
		return "", "", fmt.Errorf("%v (is libadolc-dev installed? make bench installs it)", err)
	}
	objs = append(objs, adolc)
	libs := []string{"-ladolc", "-lstdc++", "-lm"}
	post = filepath.Join(work, "post")
	if err := runQuiet(nil, cc, append(append(append([]string{"-O2"}, objs...), "-o", post), libs...)...); err != nil {
		return "", "", err
	}
	pre = filepath.Join(work, "pre")
	if err := runQuiet([]string{"GOZYME_AD_STAGE=pre"}, cc, append(append(append([]string{"-O2"}, objs...), "-o", pre), libs...)...); err != nil {
		return "", "", err
	}
	return post, pre, nil
}

// buildClientWorkload compiles main.cpp with gozyme-c++ and adolc.cpp with
// clang++-14, both with clientFlags, and links them with gozyme-c++.
func buildClientWorkload(cxxGozyme, src, work string) (string, error) {
	flags := append(append([]string{}, clientFlags...), "-I", src)
	main := filepath.Join(work, "main.o")
	if err := runQuiet(nil, cxxGozyme, append(append([]string{}, flags...), "-c", filepath.Join(src, "main.cpp"), "-o", main)...); err != nil {
		return "", err
	}
	cxx, err := exec.LookPath("clang++-14")
	if err != nil {
		return "", err
	}
	adolc := filepath.Join(work, "adolc.o")
	if err := runQuiet(nil, cxx, append(append([]string{}, flags...), "-c", filepath.Join(src, "adolc.cpp"), "-o", adolc)...); err != nil {
		return "", fmt.Errorf("%v (is libadolc-dev installed? make bench installs it)", err)
	}
	exe := filepath.Join(work, "post")
	link := append(append([]string{}, clientFlags...), main, adolc, "-o", exe, "-ladolc", "-lm")
	return exe, runQuiet(nil, cxxGozyme, link...)
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

// parseWorkload reads TIME and WRONG lines; suffix is appended to methods.
func parseWorkload(workload string, out []byte, suffix string, byName map[string]*caseResult, order *[]*caseResult) error {
	get := func(name string) *caseResult {
		if c := byName[name]; c != nil {
			return c
		}
		c := &caseResult{workload: workload, name: name, times: map[string]timing{}, wrong: map[string]float64{}}
		byName[name] = c
		*order = append(*order, c)
		return c
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 5 && f[0] == "TIME":
			s, err1 := strconv.ParseFloat(f[3], 64)
			e, err2 := strconv.ParseFloat(f[4], 64)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("workload %s: bad line %q", workload, sc.Text())
			}
			get(f[1]).times[f[2]+suffix] = timing{s, e}
		case len(f) == 4 && f[0] == "WRONG":
			e, _ := strconv.ParseFloat(f[3], 64)
			get(f[1]).wrong[f[2]+suffix] = e
		}
	}
	return nil
}

// ratio formats a/b, or "–" when either is missing.
func ratio(c *caseResult, a, b string) string {
	ta, okA := c.times[a]
	tb, okB := c.times[b]
	if !okA || !okB {
		return "–"
	}
	return fmt.Sprintf("%.2f", ta.seconds/tb.seconds)
}

func timeOf(c *caseResult, m string) string {
	if e, bad := c.wrong[m]; bad {
		return fmt.Sprintf("WRONG (rel. err %.2g)", e)
	}
	if t, ok := c.times[m]; ok {
		return seconds(t.seconds)
	}
	return "–"
}

// adbench are the workloads from ADBench, whose gradients have the same
// complexity before and after optimization (norm's does not).
var adbench = []string{"gmm", "lstm", "ba"}

// preOverPost is the geometric mean of J-pre/J over the cases with both,
// of the workloads named (all when none are).
func preOverPost(cs []*caseResult, workloads ...string) (float64, int) {
	sum, n := 0.0, 0
	for _, c := range cs {
		if len(workloads) > 0 && !contains(workloads, c.workload) {
			continue
		}
		post, ok1 := c.times["J"]
		pre, ok2 := c.times["J-pre"]
		if ok1 && ok2 {
			sum += math.Log(pre.seconds / post.seconds)
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
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.name,
			timeOf(c, "F"), timeOf(c, "J"), ratio(c, "J", "F"), ratio(c, "hand", "F"), ratio(c, "J", "hand"),
			ratio(c, "adolc", "F"), timeOf(c, "adolc-tape"), ratio(c, "fd", "F"), timeOf(c, "J-pre"), ratio(c, "J-pre", "J"))
	}
	return b.String() + formatClientGoals(cs)
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
		wrong := make([]string, 0, len(c.wrong))
		for m := range c.wrong {
			wrong = append(wrong, m)
		}
		sort.Strings(wrong)
		for _, m := range wrong {
			out = append(out, fmt.Sprintf("WRONG gradient: %s %s (relative error %.2g), not timed", c.name, m, c.wrong[m]))
		}
		j, okJ := c.times["J"]
		h, okH := c.times["hand"]
		if (c.workload == "gmm" || c.workload == "lstm") && okJ && okH {
			verdict := "met"
			if j.seconds > 1.2*h.seconds {
				verdict = fmt.Sprintf("MISSED by %.2fx", j.seconds/(1.2*h.seconds))
			}
			line := fmt.Sprintf("%s: J/hand %.2f (target ≤ 1.2: %s)", c.name, j.seconds/h.seconds, verdict)
			if a, ok := c.times["adolc"]; ok {
				line += fmt.Sprintf(", ADOL-C/J %.1f", a.seconds/j.seconds)
			}
			out = append(out, line)
		}
	}
	out = append(out, clientTargetLines(cs)...)
	if g, n := preOverPost(cs, adbench...); n > 0 {
		line := fmt.Sprintf("AD before/after optimization, geometric mean over %d GMM, LSTM and BA cases: %.2fx (the seed reports 4.2x for Enzyme)", n, g)
		if g2, n2 := preOverPost(cs); n2 > n {
			line += fmt.Sprintf("; with the norm cases, where AD before optimization is O(n^2): %.2fx over %d cases", g2, n2)
		}
		out = append(out, line)
	}
	return out
}
