package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gozyme/gozyme/bench/internal/workload"
)

// results is what run.sh wrote: the machine, and each job's output.
type results struct {
	date, cpu, mode string
	machine         []string          // LSCPU, GOVERNOR, KERNEL lines
	pins            map[string]string // job -> logical CPU
	jobs            []string          // in order of first output
	output          map[string][]byte // job -> its lines, prefix removed
	exit            map[string]string // job -> exit status
}

// readResults reads a results file of run.sh.
func readResults(path string) (*results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &results{pins: map[string]string{}, output: map[string][]byte{}, exit: map[string]string{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		key, rest, _ := strings.Cut(line, " ")
		switch {
		case key == "DATE":
			r.date = rest
		case key == "CPU":
			r.cpu = rest
		case key == "MODE":
			r.mode = rest
		case key == "LSCPU" || key == "GOVERNOR" || key == "KERNEL":
			r.machine = append(r.machine, line)
		case key == "PIN":
			if f := strings.Fields(rest); len(f) == 3 {
				r.pins[f[0]] = f[2]
			}
		case strings.Contains(key, "/"): // a job's line: gmm/post TIME ...
			if _, seen := r.output[key]; !seen {
				r.jobs = append(r.jobs, key)
				r.output[key] = nil
			}
			if st, ok := strings.CutPrefix(rest, "EXIT "); ok {
				r.exit[key] = st
			} else {
				r.output[key] = append(append(r.output[key], rest...), '\n')
			}
		}
	}
	return r, sc.Err()
}

// cases reads every job's TIME and WRONG lines into cases, a workload's
// post build first, then its pre build (methods suffixed -pre).
func (r *results) cases(root string) ([]*workload.Case, error) {
	var names []string
	for _, j := range r.jobs {
		name, _, _ := strings.Cut(j, "/")
		if !contains(names, name) {
			names = append(names, name)
		}
	}
	var all []*workload.Case
	for _, name := range names {
		byName := map[string]*workload.Case{}
		var order []*workload.Case
		for _, b := range []struct{ build, suffix string }{{"post", ""}, {"pre", "-pre"}} {
			if err := workload.Parse(name, r.output[name+"/"+b.build], b.suffix, byName, &order); err != nil {
				return nil, err
			}
		}
		client := workload.IsClientStyle(filepath.Join(root, "bench", "workloads", name))
		for _, c := range order {
			c.Client = client
		}
		all = append(all, order...)
	}
	return all, nil
}

// failures are the jobs that did not exit 0 (124: the timeout).
func (r *results) failures() []string {
	var out []string
	for _, j := range r.jobs {
		switch st := r.exit[j]; st {
		case "0":
		case "":
			out = append(out, j+": no exit status (run.sh cut short?)")
		case "124":
			out = append(out, j+": timed out")
		default:
			out = append(out, j+": exit status "+st)
		}
	}
	return out
}

// writeReport turns run.sh's results into dir/remote.md.
func writeReport(root, resultsFile, dir string) error {
	r, err := readResults(resultsFile)
	if err != nil {
		return err
	}
	cs, err := r.cases(root)
	if err != nil {
		return err
	}
	md := formatReport(r, cs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, "remote.md")
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Print(strings.Join(targetLines(r, cs), "\n") + "\n")
	fmt.Println("wrote", path)
	return nil
}

// targetLines are the verdicts, a line per case with goals, then the wrong
// gradients and the jobs that failed.
func targetLines(r *results, cs []*workload.Case) []string {
	out := workload.TargetLines(cs, workload.Goals)
	for _, c := range cs {
		var wrong []string
		for m := range c.Wrong {
			wrong = append(wrong, m)
		}
		sort.Strings(wrong)
		for _, m := range wrong {
			out = append(out, fmt.Sprintf("WRONG gradient: %s %s (relative error %.2g), not timed", c.Name, m, c.Wrong[m]))
		}
	}
	for _, f := range r.failures() {
		out = append(out, "FAILED: "+f)
	}
	return out
}

// formatReport is remote.md.
func formatReport(r *results, cs []*workload.Case) string {
	var b strings.Builder
	b.WriteString("# Workloads on a quiet machine (make bench-remote)\n\n")
	fmt.Fprintf(&b, "Run %s on %s (mode: %s). ", r.date, r.cpu, r.mode)
	fmt.Fprintf(&b, "Built by bench/remote on the build machine as make bench builds them (bench/internal/workload), but linked statically (-static, with ADOL-C's ColPack) and stripped; the client-style C++ workloads with -march=%s instead of -march=native, since the machine that ran them is not the one that built them (the C workloads have no -march in either). ", march)
	b.WriteString("All ran at once, each pinned (taskset) to one logical CPU of a physical core of its own (never two on hyperthread siblings), in waves when there were more programs than cores; each time is the minimum per call over 5 batches of ≥ 0.5 s, every gradient checked against the hand-written one before it was timed.\n\n")
	b.WriteString("```\n" + strings.Join(r.machine, "\n") + "\n```\n\n")
	b.WriteString("## Figures and goals\n\n")
	b.WriteString("Goals: a client-style workload's gradient within 1.5x of the hand-written one (GMM and LSTM, C or C++, within 1.2x), and faster than ADOL-C's (J/ADOL-C ≤ 1, on its tape); FoR/RoF (k-means): forward-over-reverse no slower than reverse-over-forward.\n\n")
	b.WriteString("| case | F | J | J/F | J/hand | J/ADOL-C | J before opt./J | goals |\n|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, c := range cs {
		var goals []string
		for _, g := range workload.Goals(c) {
			goals = append(goals, fmt.Sprintf("%s ≤ %.2g: %s", g.Figure, g.Goal, workload.Verdict(g.Got, g.Goal)))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Name,
			workload.TimeOf(c, "F"), workload.TimeOf(c, "J"), workload.Ratio(c, "J", "F"), workload.Ratio(c, "J", "hand"),
			workload.Ratio(c, "J", "adolc"), workload.Ratio(c, "J-pre", "J"), strings.Join(goals, "; "))
	}
	if lines := targetLines(r, cs); len(lines) > 0 {
		b.WriteString("\n## Verdicts\n\n- " + strings.Join(lines, "\n- ") + "\n")
	}
	b.WriteString("\n## Placement\n\n| program | logical CPU | exit |\n|---|---:|---:|\n")
	for _, j := range r.jobs {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", j, r.pins[j], r.exit[j])
	}
	return b.String()
}
