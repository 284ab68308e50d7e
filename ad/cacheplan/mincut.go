package cacheplan

import (
	"sort"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir/types"
)

// The choice between caching a value for the reverse sweep and recomputing
// it there is a minimum cut of a flow network: a node pair (in, out) per
// value, the edge between them weighing what caching it costs; edges from
// the source to what must be cached or costs something to recompute, edges
// to the sink from what the reverse reads, and uncuttable edges (Inf) from
// each value to those recomputed from it. The cut caches the values whose
// in node the source side holds and whose out node it does not.

// Inf is the capacity of an uncuttable edge.
const Inf = int64(1) << 50

// Source and Sink are the flow network's first two nodes.
const Source, Sink = 0, 1

// Graph is a flow network with integer capacities; parallel edges add up.
type Graph struct {
	n        int
	capacity map[[2]int]int64
	adj      map[int][]int
}

// NewGraph returns a network of Source and Sink alone.
func NewGraph() *Graph {
	return &Graph{n: 2, capacity: map[[2]int]int64{}, adj: map[int][]int{}}
}

// NewNode adds a node, numbered after those before it.
func (g *Graph) NewNode() int {
	g.n++
	return g.n - 1
}

// AddEdge adds capacity c to the edge from a to b.
func (g *Graph) AddEdge(a, b int, c int64) {
	if _, ok := g.capacity[[2]int{a, b}]; !ok {
		g.adj[a] = append(g.adj[a], b)
		g.adj[b] = append(g.adj[b], a)
	}
	g.capacity[[2]int{a, b}] += c
}

// Capacity is the capacity of the edge from a to b (0 where there is none).
func (g *Graph) Capacity(a, b int) int64 { return g.capacity[[2]int{a, b}] }

// MinCut finds a maximum flow from Source to Sink (Edmonds-Karp: augmenting
// along shortest residual paths; a path of uncuttable edges stops it with
// the flow found so far) and returns the source side of the minimum cut,
// the nodes the residual graph reaches from Source.
func (g *Graph) MinCut() func(node int) bool {
	flow := map[[2]int]int64{}
	residual := func(a, b int) int64 { return g.capacity[[2]int{a, b}] - flow[[2]int{a, b}] + flow[[2]int{b, a}] }
	for {
		prev := residualBFS(g.adj, Source, residual)
		if _, ok := prev[Sink]; !ok {
			break
		}
		push := Inf
		for b := Sink; b != Source; b = prev[b] {
			if c := residual(prev[b], b); c < push {
				push = c
			}
		}
		if push >= Inf {
			break // an uncuttable path: keep the current behaviour
		}
		for b := Sink; b != Source; b = prev[b] {
			a := prev[b]
			back := flow[[2]int{b, a}]
			if back >= push {
				flow[[2]int{b, a}] -= push
			} else {
				flow[[2]int{b, a}] = 0
				flow[[2]int{a, b}] += push - back
			}
		}
	}
	tree := residualBFS(g.adj, Source, residual)
	return func(n int) bool { _, ok := tree[n]; return ok }
}

// residualBFS searches the residual graph of a flow network breadth-first
// from source, along edges with capacity left: every node it reaches maps to
// the node it was reached from (source to itself), so the map is a shortest
// path tree.
func residualBFS(adj map[int][]int, source int, residual func(a, b int) int64) map[int]int {
	prev := map[int]int{source: source}
	queue := []int{source}
	for len(queue) > 0 {
		a := queue[0]
		queue = queue[1:]
		for _, b := range adj[a] {
			if _, seen := prev[b]; !seen && residual(a, b) > 0 {
				prev[b] = a
				queue = append(queue, b)
			}
		}
	}
	return prev
}

// BreakTies makes recomputing a pure operation (package ad's pureOp, not
// a library call, whose cost recomputeBytes states) cost a little, less
// than a byte of cache in all: among the cuts that cache the fewest bytes, the plan
// takes one that recomputes the fewest arithmetic instructions in the
// reverse sweep. Without it the plan took the cut nearest the must-cache
// values: for xc = x[j] - mu[j], read in the reverse, it cached the load
// x[j] (8 bytes, as xc) and rebuilt xc from it, reloading mu[j] and
// subtracting again in every reverse iteration. Address arithmetic and
// loads of memory nothing overwrites stay free: the reverse sweep mostly
// rebuilds the same addresses for its shadow accesses. Every capacity is
// scaled by more than the sum of these costs, so they never outweigh a
// byte; where the scaling would reach the uncuttable capacities, nothing
// changes.
//
// cost[in] is the cost of recomputing the value whose in node is in: it is
// added to the edge from Source to in.
func (g *Graph) BreakTies(cost map[int]int64) {
	scale := int64(1)
	for _, c := range cost {
		scale += c
	}
	for _, c := range g.capacity {
		if c < Inf && c > Inf/2/scale {
			return
		}
	}
	for e, c := range g.capacity {
		if c < Inf {
			g.capacity[e] = c * scale
		}
	}
	// In node order: the edges' order is the search's, and a search that
	// meets an uncuttable path stops with the flow found so far.
	ins := make([]int, 0, len(cost))
	for in := range cost {
		ins = append(ins, in)
	}
	sort.Ints(ins)
	for _, in := range ins {
		g.AddEdge(Source, in, cost[in])
	}
}

// TypeBytes is the size in bytes of a value of type t, as the cache stores
// it: an estimate for the cut's costs (no padding; x86_fp80 and other wide
// floats 16, pointers and other types 8), not the data layout (irutil.StoreSize and
// AllocSize are).
func TypeBytes(t types.Type) int64 {
	switch x := t.(type) {
	case *types.IntType:
		return int64(x.BitSize+7) / 8
	case *types.FloatType:
		if s := irutil.FloatSize(x.Kind); s <= 8 {
			return s
		}
		return 16
	case *types.VectorType:
		return int64(x.Len) * TypeBytes(x.ElemType)
	case *types.ArrayType:
		return int64(x.Len) * TypeBytes(x.ElemType)
	case *types.StructType:
		var s int64
		for _, f := range x.Fields {
			s += TypeBytes(f)
		}
		return s
	}
	return 8
}
