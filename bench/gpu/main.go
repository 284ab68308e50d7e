// Command gpu builds gozyme's GPU programs (tests/gpu/kernels) for a GPU
// machine and reports their results (make bench-gpu):
//
//	go run ./bench/gpu -root . -out build/bench-gpu [-run] [-results bench/results]
//	go run ./bench/gpu -report results.txt -results bench/results
//
// The build needs no GPU: bin/gozyme-c++ compiles each program into a host
// object with its differentiated kernels' PTX embedded (and, for the timed
// programs, a second object whose gradients add adjoints without atomics,
// to measure what the atomics cost), and puts them in the output folder
// with run.sh, which links and runs them where a GPU and the CUDA runtime
// are (g++ and libcudart suffice there). With -run, where a GPU is
// reachable here, it runs run.sh and writes the report; -report turns a
// results file run.sh wrote elsewhere into the report (gpu.md).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// program is one of tests/gpu/kernels, with the environment its build needs.
type program struct {
	name  string
	env   []string
	timed bool // has a "bench" mode (a PLAIN variant is built too)
}

var programs = []program{
	{"daxpy", nil, true},
	{"shared", nil, true},
	{"loop", nil, true},
	{"xsbench", nil, true},
	{"lulesh", nil, true},
	{"private", nil, true},
	{"loop_dynamic", []string{"GOZYME_GPU_LOOP_RECORDS=32"}, false},
	{"reduce_dynamic", []string{"GOZYME_GPU_LOOP_RECORDS=16"}, false},
}

func main() {
	root := flag.String("root", ".", "repository root (holds bin/ and tests/gpu)")
	out := flag.String("out", "build/bench-gpu", "folder for the objects and run.sh")
	run := flag.Bool("run", false, "run the programs here when a GPU is reachable")
	report := flag.String("report", "", "a results file of run.sh to report (builds nothing)")
	results := flag.String("results", "bench/results", "folder for gpu.md")
	flag.Parse()
	if err := mainErr(*root, *out, *run, *report, *results); err != nil {
		fmt.Fprintln(os.Stderr, "bench/gpu:", err)
		os.Exit(1)
	}
}

func mainErr(root, out string, run bool, report, results string) error {
	if report != "" {
		return writeReport(report, results)
	}
	if err := buildAll(root, out); err != nil {
		return err
	}
	if !run {
		fmt.Printf("built in %s: copy it to a machine with an NVIDIA GPU and run run.sh there\n", out)
		return nil
	}
	if why := gpuUnreachable(); why != "" {
		fmt.Printf("bench-gpu: no GPU reachable here (%s): the programs are built in %s; run its run.sh on a machine with an NVIDIA GPU and the CUDA runtime, then go run ./bench/gpu -report results.txt\n", why, out)
		return nil
	}
	res := filepath.Join(out, "results.txt")
	cmd := exec.Command("bash", filepath.Join(out, "run.sh"), "results.txt")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return err
	}
	return writeReport(res, results)
}

// gpuUnreachable says why no GPU can run the programs here ("" when one can).
func gpuUnreachable() string {
	if err := exec.Command("nvidia-smi", "-L").Run(); err != nil {
		return "nvidia-smi does not list a GPU"
	}
	cuda := os.Getenv("CUDA_HOME")
	if cuda == "" {
		cuda = "/usr/local/cuda"
	}
	if m, _ := filepath.Glob(filepath.Join(cuda, "lib64", "libcudart.so*")); len(m) == 0 {
		return "no libcudart in " + filepath.Join(cuda, "lib64")
	}
	return ""
}

// buildAll compiles every program into out, with run.sh.
func buildAll(root, out string) error {
	cxx, err := filepath.Abs(filepath.Join(root, "bin", "gozyme-c++"))
	if err != nil {
		return err
	}
	if _, err := os.Stat(cxx); err != nil {
		return fmt.Errorf("%s not built (make build)", cxx)
	}
	lib := os.Getenv("GOZYME_LIBDEVICE")
	if lib == "" {
		lib, _ = filepath.Abs(filepath.Join(root, "..", "shared", "cuda", "libdevice.10.bc"))
	}
	if _, err := os.Stat(lib); err != nil {
		return fmt.Errorf("no libdevice.10.bc at %s (NVIDIA's device math, part of the CUDA toolkit): set GOZYME_LIBDEVICE", lib)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, p := range programs {
		variants := []bool{false}
		if p.timed {
			variants = append(variants, true)
		}
		for _, plain := range variants {
			name := p.name
			env := append(append(os.Environ(), "GOZYME_LIBDEVICE="+lib), p.env...)
			if plain {
				name += ".plain"
				env = append(env, "GOZYME_GPU_BENCH_PLAIN_ADJOINTS=1")
			}
			keep, err := filepath.Abs(filepath.Join(out, "keep-"+name))
			if err != nil {
				return err
			}
			os.RemoveAll(keep)
			src := filepath.Join(root, "tests", "gpu", "kernels", p.name+".cu")
			obj := filepath.Join(out, name+".o")
			cmd := exec.Command(cxx, "-O2", "-c", src, "-o", obj)
			cmd.Env = append(env, "GOZYME_KEEP_TEMPS="+keep, "GOZYME_GPU_REPORT=1")
			if msg, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%s: %v\n%s", src, err, msg)
			} else if !plain {
				os.Stdout.Write(msg) // the cache reports
			}
			if !plain {
				ptx, _ := filepath.Glob(filepath.Join(keep, "*", "*.ptx"))
				if len(ptx) != 1 {
					return fmt.Errorf("%s: want one PTX file in %s, found %v", src, keep, ptx)
				}
				if err := copyFile(ptx[0], filepath.Join(out, name+".ptx")); err != nil {
					return err
				}
			}
			os.RemoveAll(keep)
		}
	}
	for _, f := range []string{"run.sh"} {
		if err := copyFile(filepath.Join(root, "bench", "gpu", f), filepath.Join(out, f)); err != nil {
			return err
		}
	}
	return os.Chmod(filepath.Join(out, "run.sh"), 0o755)
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// timing is one BENCH (or PLAIN) line.
type timing struct{ primal, grad float64 }

// writeReport turns run.sh's results into results/gpu.md.
func writeReport(resultsFile, dir string) error {
	f, err := os.Open(resultsFile)
	if err != nil {
		return err
	}
	defer f.Close()
	var date, gpu, cuda string
	var checks, notes []string
	bench, plain := map[string]timing{}, map[string]timing{}
	var order []string
	program := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "DATE":
			date = strings.TrimPrefix(line, "DATE ")
		case "GPU":
			gpu = strings.TrimPrefix(line, "GPU ")
		case "CUDA":
			cuda = strings.TrimPrefix(line, "CUDA ")
		case "CHECK":
			checks = append(checks, line)
		case "BENCH", "PLAIN":
			if len(fields) < 4 {
				continue
			}
			t := timing{value(fields[2]), value(fields[3])}
			if fields[0] == "BENCH" {
				if _, ok := bench[fields[1]]; !ok {
					order = append(order, fields[1])
				}
				bench[fields[1]] = t
			} else {
				plain[fields[1]] = t
			}
		case "PROGRAM":
			program = strings.Join(fields[1:], " ")
		case "EXIT":
			notes = append(notes, fmt.Sprintf("EXIT %s: %s", program, strings.Join(fields[1:], " ")))
		case "PTXAS", "FATBIN", "LINK", "SANITIZER", "FAILED":
			if fields[0] == "SANITIZER" {
				program = strings.Join(fields[1:], " ")
			}
			notes = append(notes, line)
		default:
			if strings.Contains(line, "ERROR SUMMARY") || strings.Contains(line, "RACECHECK SUMMARY") {
				notes = append(notes, line)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# GPU gradients (make bench-gpu)\n\nRun %s on %s (%s), programs built by gozyme-c++ -O2 for sm_80 (PTX, compiled by the driver).\n\n", date, gpu, cuda)
	ok := 0
	for _, c := range checks {
		if strings.HasSuffix(c, " ok") {
			ok++
		}
	}
	fmt.Fprintf(&b, "## Gradient checks: %d of %d ok\n\nEach against central differences of the primal kernel run on the GPU (or the analytic gradient), error relative to the largest entry.\n\n```\n%s\n```\n\n", ok, len(checks), strings.Join(checks, "\n"))
	b.WriteString("## Time per launch\n\n`grad/primal`: the gradient kernel's time over the primal kernel's. `no atomics`: the same gradient built with GOZYME_GPU_BENCH_PLAIN_ADJOINTS (plain adds: wrong where threads share memory); `atomics' share`: (gradient - no atomics) / gradient.\n\n")
	b.WriteString("| kernel | primal ms | gradient ms | grad/primal | no atomics ms | atomics' share |\n|---|---:|---:|---:|---:|---:|\n")
	for _, n := range order {
		t := bench[n]
		pl, share := "", ""
		if p, has := plain[n]; has && t.grad > 0 {
			pl = fmt.Sprintf("%.4g", p.grad)
			share = fmt.Sprintf("%.0f%%", 100*(t.grad-p.grad)/t.grad)
		}
		fmt.Fprintf(&b, "| %s | %.4g | %.4g | %.2f | %s | %s |\n", n, t.primal, t.grad, t.grad/t.primal, pl, share)
	}
	fmt.Fprintf(&b, "\n## Tools\n\n```\n%s\n```\n", strings.Join(notes, "\n"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, "gpu.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Println("wrote", path)
	return nil
}

// value reads the number of a key=value field.
func value(field string) float64 {
	if i := strings.IndexByte(field, '='); i >= 0 {
		field = field[i+1:]
	}
	v, _ := strconv.ParseFloat(field, 64)
	return v
}
