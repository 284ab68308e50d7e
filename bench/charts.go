package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// writeCharts draws the workload results as PNGs in dir: ratios.png (each
// method's gradient time over the primal's, per case), prepost.png (AD
// before over after optimization) and norm.png (norm's times against n).
func writeCharts(cs []*caseResult, dir string) ([]string, error) {
	var written []string
	save := func(p *plot.Plot, name string, w vg.Length) error {
		path := filepath.Join(dir, name)
		if err := p.Save(w, 5*vg.Inch, path); err != nil {
			return err
		}
		written = append(written, path)
		return nil
	}
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
	}
	width := vg.Length(math.Max(8, 0.9*float64(len(cs)))) * vg.Inch

	p := perCase(names, "gradient time / primal time (log)")
	var lines []interface{}
	for _, m := range []struct{ method, label string }{{"J", "gozyme"}, {"hand", "hand-written"}, {"adolc", "ADOL-C"}, {"fd", "central differences"}} {
		pts := ratioPoints(cs, m.method, "F")
		if len(pts) > 0 {
			lines = append(lines, m.label, pts)
		}
	}
	if err := plotutil.AddScatters(p, lines...); err != nil {
		return nil, err
	}
	if err := save(p, "ratios.png", width); err != nil {
		return nil, err
	}

	p = perCase(names, "gradient time, AD before / after optimization (log)")
	if pts := ratioPoints(cs, "J-pre", "J"); len(pts) > 0 {
		if err := plotutil.AddScatters(p, "before / after", pts); err != nil {
			return nil, err
		}
		if err := save(p, "prepost.png", width); err != nil {
			return nil, err
		}
	}

	p = plot.New()
	p.Title.Text = "norm: out[i] = in[i] / mag(in, n)"
	p.X.Label.Text, p.Y.Label.Text = "n", "seconds per call"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{}, plot.LogTicks{}
	lines = nil
	for _, m := range []struct{ method, label string }{{"F", "primal"}, {"J", "gozyme gradient"}, {"J-pre", "gozyme, AD before optimization"}, {"hand", "hand-written gradient"}} {
		var pts plotter.XYs
		for _, c := range cs {
			n, ok := normSize(c.Name)
			if t, has := c.Times[m.method]; ok && has {
				pts = append(pts, plotter.XY{X: n, Y: t.Seconds})
			}
		}
		if len(pts) > 0 {
			lines = append(lines, m.label, pts)
		}
	}
	if len(lines) > 0 {
		if err := plotutil.AddLinePoints(p, lines...); err != nil {
			return nil, err
		}
		if err := save(p, "norm.png", 7*vg.Inch); err != nil {
			return nil, err
		}
	}
	return written, nil
}

// perCase is a plot with one x position per case and a log y axis.
func perCase(names []string, ylabel string) *plot.Plot {
	p := plot.New()
	p.Y.Label.Text = ylabel
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{}
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	var ticks []plot.Tick
	for i, n := range names {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: n})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YTop
	p.Legend.Top = true
	return p
}

// ratioPoints are a/b at each case's x position, where both were measured.
func ratioPoints(cs []*caseResult, a, b string) plotter.XYs {
	var pts plotter.XYs
	for i, c := range cs {
		ta, okA := c.Times[a]
		tb, okB := c.Times[b]
		if okA && okB {
			pts = append(pts, plotter.XY{X: float64(i), Y: ta.Seconds / tb.Seconds})
		}
	}
	return pts
}

// normSize reads n from a case named "norm(n=1000)".
func normSize(name string) (float64, bool) {
	s, ok := strings.CutPrefix(name, "norm(n=")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseFloat(strings.TrimSuffix(s, ")"), 64)
	return n, err == nil
}

// normScaling is the exponent of J's time in n between the smallest and the
// largest norm case (1 is linear).
func normScaling(cs []*caseResult) string {
	var lo, hi *caseResult
	var nlo, nhi float64
	for _, c := range cs {
		n, ok := normSize(c.Name)
		if _, has := c.Times["J"]; !ok || !has {
			continue
		}
		if lo == nil || n < nlo {
			lo, nlo = c, n
		}
		if hi == nil || n > nhi {
			hi, nhi = c, n
		}
	}
	if lo == nil || nhi == nlo {
		return ""
	}
	k := math.Log(hi.Times["J"].Seconds/lo.Times["J"].Seconds) / math.Log(nhi/nlo)
	return fmt.Sprintf("norm gradient: time grows as n^%.2f from n=%g to n=%g (linear is n^1)\n", k, nlo, nhi)
}
