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

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/gozyme/gozyme/bench/internal/workload"
)

// The link of one function of N straight-line statements, differentiated
// in reverse mode: how the link's time and memory grow with N (issue 22:
// linear, N = 20000 under a minute of CPU time).

var straightLineSizes = []int{1000, 2000, 5000, 10000, 20000}

// straightLineGoal is the CPU time goal of the link at straightLineGoalN.
const (
	straightLineGoalN   = 20000
	straightLineGoalCPU = 60.0
)

// straightLink is one size's link: wall and CPU seconds (every process of
// the link), code generation's share, peak memory (MiB).
type straightLink struct {
	n                        int
	wall, cpu, codegen, peak float64
}

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
// the link's wall and CPU time, its code generation and the peak memory of
// any process of the link, the goal's verdict and, in outDir,
// linkscaling.png (time against N).
func straightLineBench(cc, tmp, outDir string) (string, error) {
	dir := filepath.Join(tmp, "link-straightline")
	var links []straightLink
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
		l := straightLink{n: n, wall: time.Since(start).Seconds()}
		l.cpu = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
		for _, line := range strings.Split(stderr.String(), "\n") {
			fmt.Sscanf(line, "gozyme-ld: time codegen %g", &l.codegen)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			l.peak = float64(ru.Maxrss) / 1024 // KiB on Linux
		}
		links = append(links, l)
	}
	report := formatStraightLinks(links)
	chart, err := straightLineChart(links, outDir)
	if err != nil {
		return "", err
	}
	return report + fmt.Sprintf("\n![%s](%s)\n", filepath.Base(chart), filepath.Base(chart)), nil
}

// formatStraightLinks is the table of the links, the goal's verdict and
// how far the growth is from linear (CPU time per statement at the largest
// N over the same at the smallest).
func formatStraightLinks(links []straightLink) string {
	var b strings.Builder
	b.WriteString("\n### Link of one function of N straight-line statements (reverse mode, -O2)\n\n")
	b.WriteString("CPU time counts every process of the link (user + system).\n\n")
	b.WriteString("| N | link (wall) | link (CPU) | codegen | peak memory | CPU per 1000 statements |\n|---:|---:|---:|---:|---:|---:|\n")
	for _, l := range links {
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %.0f MiB | %s |\n", l.n, seconds(l.wall), seconds(l.cpu), seconds(l.codegen), l.peak, seconds(l.cpu*1000/float64(l.n)))
	}
	if len(links) < 2 {
		return b.String()
	}
	first, last := links[0], links[len(links)-1]
	growth := (last.cpu / float64(last.n)) / (first.cpu / float64(first.n))
	fmt.Fprintf(&b, "\nCPU time per statement at N = %d over N = %d: %.2fx (1 is linear).\n", last.n, first.n, growth)
	for _, l := range links {
		if l.n == straightLineGoalN {
			fmt.Fprintf(&b, "Goal: the link at N = %d under %.0f CPU seconds: %s (%s).\n", l.n, straightLineGoalCPU, workload.Verdict(l.cpu, straightLineGoalCPU), seconds(l.cpu))
		}
	}
	return b.String()
}

// straightLineChart draws the links' wall and CPU time against N (log-log,
// with a line of slope 1 through the smallest link's CPU time for
// reference) as linkscaling.png in dir.
func straightLineChart(links []straightLink, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := plot.New()
	p.Title.Text = "link of one function of N statements (reverse mode, -O2)"
	p.X.Label.Text, p.Y.Label.Text = "N", "seconds"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{}, plot.LogTicks{}
	p.Legend.Top = true
	var wall, cpu, linear plotter.XYs
	for _, l := range links {
		wall = append(wall, plotter.XY{X: float64(l.n), Y: l.wall})
		cpu = append(cpu, plotter.XY{X: float64(l.n), Y: l.cpu})
		linear = append(linear, plotter.XY{X: float64(l.n), Y: links[0].cpu * float64(l.n) / float64(links[0].n)})
	}
	if err := plotutil.AddLinePoints(p, "wall", wall, "CPU", cpu, "linear from the smallest", linear); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "linkscaling.png")
	return path, p.Save(7*vg.Inch, 5*vg.Inch, path)
}
