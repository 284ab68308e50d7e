package cacheplan

import (
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
)

// LoneExit returns the one edge leaving loop m, or, where several blocks
// leave it to the same block, that block (exiting is nil then); no target
// where edges leave it to different blocks.
func LoneExit(m *irutil.Loop) (exiting, target *ir.Block) {
	n := 0
	for x := range m.Blocks {
		for _, s := range irutil.Succs(x) {
			switch {
			case m.Contains(s):
			case target == nil:
				exiting, target, n = x, s, 1
			case target != s:
				return nil, nil
			case exiting != x:
				n++
			}
		}
	}
	if n > 1 {
		exiting = nil
	}
	return exiting, target
}

// OneExitTarget reports whether every edge leaving loop c goes to the
// same block.
func OneExitTarget(c *irutil.Loop) bool {
	_, target := LoneExit(c)
	return target != nil
}

// ReachesInIteration reports whether a path runs from block from to block
// to within one iteration of loop p (not back through p's header),
// avoiding block avoid.
func ReachesInIteration(p *irutil.Loop, from, to, avoid *ir.Block) bool {
	return from != avoid && Reaches(from, to, func(b *ir.Block) bool { return b == avoid || b == p.Header || !p.Contains(b) })
}

// PredsThrough returns the predecessors (of b, among preds) through which
// paths from s, a successor of b's dominator d, reach b without passing d
// or b again; d itself where s is b.
func PredsThrough(b, d, s *ir.Block, preds []*ir.Block) []*ir.Block {
	var out []*ir.Block
	for _, p := range preds {
		switch {
		case s == b:
			if p == d {
				out = append(out, p)
			}
		case p != d && Reaches(s, p, func(x *ir.Block) bool { return x == d || x == b }):
			out = append(out, p)
		}
	}
	return out
}

// Reaches reports whether a path runs from block from to block to through
// no block for which stop holds (from and to excepted).
func Reaches(from, to *ir.Block, stop func(*ir.Block) bool) bool {
	if from == to {
		return true
	}
	seen := map[*ir.Block]bool{}
	stack := irutil.Succs(from)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == to {
			return true
		}
		if seen[x] || stop(x) {
			continue
		}
		seen[x] = true
		stack = append(stack, irutil.Succs(x)...)
	}
	return false
}
