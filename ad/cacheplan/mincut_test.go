package cacheplan

import "testing"

// chain builds the network of a value x read in the reverse sweep and
// recomputable from y, which is not recomputable: caching y costs cy,
// caching x costs cx; recomputing x costs rx (BreakTies), none when 0. It
// returns the graph and the (in, out) nodes of x and y.
func chain(cx, cy, rx int64) (g *Graph, x, y [2]int) {
	g = NewGraph()
	y = [2]int{g.NewNode(), g.NewNode()}
	x = [2]int{g.NewNode(), g.NewNode()}
	g.AddEdge(Source, y[0], Inf)
	g.AddEdge(y[0], y[1], cy)
	g.AddEdge(y[1], x[0], Inf)
	g.AddEdge(x[0], x[1], cx)
	g.AddEdge(x[1], Sink, Inf)
	if rx > 0 {
		g.BreakTies(map[int]int64{x[0]: rx})
	}
	return g, x, y
}

// cached reports whether the cut caches the value of nodes v.
func cached(reach func(int) bool, v [2]int) bool { return reach(v[0]) && !reach(v[1]) }

// TestMinCut: the cut caches the cheaper of x and the y it is recomputed
// from; where both cost the same, recomputing x (BreakTies) makes it
// cache x, and without that cost it caches y, the cut nearest the source.
func TestMinCut(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		cx, cy, rx int64
		cacheX     bool
	}{
		{"x cheaper", 4, 8, 0, true},
		{"y cheaper", 16, 8, 0, false},
		{"tie", 8, 8, 0, false},
		{"tie broken by recomputing x", 8, 8, 1, true},
		{"recomputing x outweighs no byte", 9, 8, 1, false},
	} {
		g, x, y := chain(c.cx, c.cy, c.rx)
		reach := g.MinCut()
		if cached(reach, x) != c.cacheX || cached(reach, y) == c.cacheX {
			t.Errorf("%s: caches x %v, y %v; want x %v", c.name, cached(reach, x), cached(reach, y), c.cacheX)
		}
	}
}

// TestMinCutUncuttable: a path of uncuttable edges stops the flow; the cut
// then caches nothing on it.
func TestMinCutUncuttable(t *testing.T) {
	t.Parallel()
	g := NewGraph()
	a := [2]int{g.NewNode(), g.NewNode()}
	g.AddEdge(Source, a[0], Inf)
	g.AddEdge(a[0], a[1], Inf)
	g.AddEdge(a[1], Sink, Inf)
	reach := g.MinCut()
	if cached(reach, a) || !reach(Sink) {
		t.Errorf("uncuttable path: caches %v, reaches the sink %v", cached(reach, a), reach(Sink))
	}
	if g.Capacity(a[0], a[1]) != Inf || g.Capacity(a[1], a[0]) != 0 {
		t.Errorf("capacities %d, %d", g.Capacity(a[0], a[1]), g.Capacity(a[1], a[0]))
	}
}
