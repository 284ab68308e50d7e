package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// The OpenMP section: bench/openmp/omp.c built with -fopenmp and run on
// two cores with 1 and 2 threads, and built without (serial). Reported:
// primal and gradient times, each one's speed-up from 1 to 2 threads, and
// J/F with 2 threads next to the serial build's J/F.

type ompTimes struct{ primal, grad float64 }

// ompBench builds and runs the OpenMP kernels and returns their table.
func ompBench(root, tmp, cc string) (string, error) {
	src, err := filepath.Abs(filepath.Join(root, "bench", "openmp", "omp.c"))
	if err != nil {
		return "", err
	}
	inc := filepath.Join(root, "bench", "kernels")
	build := func(name string, flags ...string) (string, error) {
		exe := filepath.Join(tmp, name)
		args := append([]string{"-O2", "-I", inc, src, "-o", exe, "-lm"}, flags...)
		if msg, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			return "", fmt.Errorf("building %s: %v\n%s", src, err, msg)
		}
		return exe, nil
	}
	par, err := build("omp-parallel", "-fopenmp")
	if err != nil {
		return "", err
	}
	ser, err := build("omp-serial")
	if err != nil {
		return "", err
	}
	runs := map[string]map[string]ompTimes{}
	var order []string
	for _, cfg := range []struct {
		key, exe string
		threads  int
	}{{"1", par, 1}, {"2", par, 2}, {"serial", ser, 1}} {
		out, err := runOnCores(cfg.exe, cfg.threads)
		if err != nil {
			return "", fmt.Errorf("running %s with %d threads: %v\n%s", cfg.exe, cfg.threads, err, out)
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 4 || f[0] != "OMPBENCH" {
				continue
			}
			p, err1 := strconv.ParseFloat(f[2], 64)
			g, err2 := strconv.ParseFloat(f[3], 64)
			if err1 != nil || err2 != nil {
				return "", fmt.Errorf("bad line %q", sc.Text())
			}
			if runs[f[1]] == nil {
				runs[f[1]] = map[string]ompTimes{}
				order = append(order, f[1])
			}
			runs[f[1]][cfg.key] = ompTimes{p, g}
		}
	}
	if len(order) == 0 {
		return "", fmt.Errorf("%s printed no results", par)
	}
	var b strings.Builder
	b.WriteString("\nOpenMP (gozyme-cc -O2 -fopenmp, 2 cores; speed-up: 1 thread over 2 threads; J/F serial: the build without -fopenmp):\n\n")
	b.WriteString("| kernel | primal 1T | primal 2T | primal speed-up | gradient 1T | gradient 2T | gradient speed-up | J/F 2T | J/F serial |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, k := range order {
		r := runs[k]
		one, two, s := r["1"], r["2"], r["serial"]
		fmt.Fprintf(&b, "| %s | %s | %s | %.2fx | %s | %s | %.2fx | %.2fx | %.2fx |\n", k,
			seconds(one.primal), seconds(two.primal), one.primal/two.primal,
			seconds(one.grad), seconds(two.grad), one.grad/two.grad,
			two.grad/two.primal, s.grad/s.primal)
	}
	return b.String(), nil
}

// runOnCores runs exe with OMP_NUM_THREADS=threads on cores 0 and 1 (when
// taskset is available); a WRONG line (a gradient off its central
// difference) is an error.
func runOnCores(exe string, threads int) ([]byte, error) {
	cmd := exec.Command(exe)
	if ts, err := exec.LookPath("taskset"); err == nil {
		cmd = exec.Command(ts, "-c", "0,1", exe)
	}
	cmd.Env = append(os.Environ(), fmt.Sprintf("OMP_NUM_THREADS=%d", threads))
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	if err == nil && bytes.Contains(out.Bytes(), []byte("WRONG")) {
		err = fmt.Errorf("a gradient differs from its central difference")
	}
	return out.Bytes(), err
}
