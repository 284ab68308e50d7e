// Command bench builds gozyme's benchmark kernels with bin/gozyme-cc, runs
// them on one core, and reports gradient time over primal time (J/F) and the
// heap bytes the gradient holds at its peak (caches, tapes, shadows).
//
//	go run ./bench            (make bench)
//
// Each kernel in bench/kernels checks its gradient against a central finite
// difference before timing it, and prints lines
// "BENCH name primal_s gradient_s primal_bytes gradient_bytes [overwritten_bytes]";
// the last field, where present, marks a kernel whose gradient heap is its
// tape (the bytes it caches), compared with the bytes the primal overwrites.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gozyme/gozyme/bench/internal/workload"
)

type result struct {
	kernel, name           string
	primal, grad           float64
	primalBytes, gradBytes int64
	overwritten            int64 // -1: not a tape kernel
}

func main() {
	root := flag.String("root", ".", "repository root (holds bin/ and bench/)")
	out := flag.String("out", "bench/results", "directory for the report")
	sections := flag.String("sections", "kernels,link,builds,project,openmp,workloads", "what to run, comma-separated")
	workloads := flag.String("workloads", "", "comma-separated workloads to run (default all in bench/workloads)")
	flag.Parse()
	var only []string
	if *workloads != "" {
		only = strings.Split(*workloads, ",")
	}
	if err := run(*root, *out, strings.Split(*sections, ","), only); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(root, outDir string, sections, workloads []string) error {
	cc, err := filepath.Abs(filepath.Join(root, "bin", "gozyme-cc"))
	if err != nil {
		return err
	}
	if _, err := os.Stat(cc); err != nil {
		return fmt.Errorf("%s not built (make build)", cc)
	}
	var kernels []string
	if contains(sections, "kernels") {
		kernels, _ = filepath.Glob(filepath.Join(root, "bench", "kernels", "*.c"))
		sort.Strings(kernels)
	}
	tmp, err := os.MkdirTemp("", "gozyme-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var results []result
	for _, k := range kernels {
		name := strings.TrimSuffix(filepath.Base(k), ".c")
		exe := filepath.Join(tmp, name)
		build := exec.Command(cc, "-O2", "-I", filepath.Dir(k), k, "-o", exe, "-lm",
			"-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free")
		if msg, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("building %s: %v\n%s", k, err, msg)
		}
		rs, err := runKernel(name, exe)
		if err != nil {
			return err
		}
		results = append(results, rs...)
	}
	var report, stdout string
	if len(results) > 0 {
		report = format(results)
		stdout = report
	}
	if contains(sections, "link") {
		linkReport, err := linkBench(root, tmp, outDir)
		if err != nil {
			return err
		}
		report += linkReport
		stdout += linkReport
	}
	if contains(sections, "builds") {
		buildReport, err := clientBuildBench(root, tmp)
		if err != nil {
			return err
		}
		report += buildReport
		stdout += buildReport
	}
	if contains(sections, "project") {
		projectReport, err := projectBuildBench(root, tmp)
		if err != nil {
			return err
		}
		report += projectReport
		stdout += projectReport
	}
	if contains(sections, "openmp") {
		ompReport, err := ompBench(root, tmp, cc)
		if err != nil {
			return err
		}
		report += ompReport
		stdout += ompReport
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	if contains(sections, "workloads") {
		cs, err := workloadBench(root, tmp, workloads)
		if err != nil {
			return err
		}
		report += formatWorkloads(cs) + formatTargets(cs) + "\n" + normScaling(cs)
		charts, err := writeCharts(cs, outDir)
		if err != nil {
			return err
		}
		for _, c := range charts {
			report += fmt.Sprintf("\n![%s](%s)\n", filepath.Base(c), filepath.Base(c))
		}
		stdout += "\nWorkloads (full table in " + filepath.Join(outDir, "summary.md") + "):\n" + summarizeWorkloads(cs) + normScaling(cs)
	}
	fmt.Print(stdout)
	return os.WriteFile(filepath.Join(outDir, "summary.md"), []byte(report), 0o644)
}

// runKernel runs one kernel pinned to one core when taskset is available.
func runKernel(kernel, exe string) ([]result, error) {
	stdout, err := runPinned("", exe)
	if err != nil {
		return nil, fmt.Errorf("running %s: %v\n%s", kernel, err, stdout)
	}
	var out []result
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if (len(f) != 6 && len(f) != 7) || f[0] != "BENCH" {
			continue
		}
		r := result{kernel: kernel, name: f[1], overwritten: -1}
		var errs []error
		parseF := func(s string) float64 { v, err := strconv.ParseFloat(s, 64); errs = append(errs, err); return v }
		parseI := func(s string) int64 { v, err := strconv.ParseInt(s, 10, 64); errs = append(errs, err); return v }
		r.primal, r.grad = parseF(f[2]), parseF(f[3])
		r.primalBytes, r.gradBytes = parseI(f[4]), parseI(f[5])
		if len(f) == 7 {
			r.overwritten = parseI(f[6])
		}
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("%s: bad line %q: %v", kernel, sc.Text(), err)
			}
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s printed no results", kernel)
	}
	return out, nil
}

func format(rs []result) string {
	var b strings.Builder
	b.WriteString("| kernel | workload | primal | gradient | J/F | gradient heap peak | tape | overwritten by the primal |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		tape, over := "", ""
		if r.overwritten >= 0 {
			tape, over = bytesize(r.gradBytes), bytesize(r.overwritten)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2fx | %s | %s | %s |\n", r.kernel, r.name,
			seconds(r.primal), seconds(r.grad), r.grad/r.primal, bytesize(r.gradBytes-r.primalBytes), tape, over)
	}
	return b.String()
}

func seconds(s float64) string { return workload.FormatSeconds(s) }

func bytesize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
