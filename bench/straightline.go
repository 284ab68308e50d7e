package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The link of one function of N straight-line statements, differentiated
// in reverse mode: how the link's time and memory grow with N (issue 22).

var straightLineSizes = []int{1000, 2000, 5000}

// straightLineSource is the generated program: N statements updating a
// 64-element array from another, with a libm call in each.
func straightLineSource(n int) string {
	const m = 64
	var b strings.Builder
	b.WriteString("#include <math.h>\n#include <stdio.h>\ndouble __enzyme_autodiff(void *, ...);\nvoid f(const double *x, double *y) {\n")
	for i := 0; i < n; i++ {
		a, c, d, e := (7*i)%m, (3*i+1)%m, (i+2)%m, (5*i+3)%m
		fmt.Fprintf(&b, "  y[%d] += x[%d] * x[%d] * 0.%d + sin(x[%d]) * y[%d] * 1e-3;\n", e, a, c, i%97+1, d, (e+1)%m)
	}
	b.WriteString(`}
int main(void) {
  double x[64], dx[64] = {0}, y[64] = {0}, dy[64];
  for (int i = 0; i < 64; i++) { x[i] = 0.01 * i; dy[i] = 1; }
  __enzyme_autodiff((void *)f, x, dx, y, dy);
  printf("%g %g\n", y[0], dx[0]);
  return 0;
}
`)
	return b.String()
}

// straightLineBench links the generated program at each size and reports
// the link's wall time, its code generation and the peak memory of any
// process of the link.
func straightLineBench(cc, tmp string) (string, error) {
	dir := filepath.Join(tmp, "link-straightline")
	var b strings.Builder
	b.WriteString("\n### Link of one function of N straight-line statements (reverse mode, -O2)\n\n| N | link | codegen | peak memory | link per 1000 statements |\n|---:|---:|---:|---:|---:|\n")
	for _, n := range straightLineSizes {
		obj, err := compile(cc, dir, fmt.Sprintf("straight%d", n), straightLineSource(n))
		if err != nil {
			return "", err
		}
		cmd := exec.Command(cc, "-O2", obj, "-lm", "-o", filepath.Join(dir, fmt.Sprintf("straight%d", n)))
		cmd.Env = append(os.Environ(), "GOZYME_TIMES=1", "GOZYME_CACHE=off")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("link of %d statements: %v\n%s", n, err, stderr.String())
		}
		wall := time.Since(start).Seconds()
		var codegen float64
		for _, l := range strings.Split(stderr.String(), "\n") {
			fmt.Sscanf(l, "gozyme-ld: time codegen %g", &codegen)
		}
		peak := 0.0
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peak = float64(ru.Maxrss) / 1024 // KiB on Linux
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %.0f MiB | %s |\n", n, seconds(wall), seconds(codegen), peak, seconds(wall*1000/float64(n)))
	}
	return b.String(), nil
}
