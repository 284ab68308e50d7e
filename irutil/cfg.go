package irutil

import (
	"fmt"

	"github.com/llir/llvm/ir"
)

// Succs returns the successor blocks of b's terminator, in operand order,
// without duplicates.
func Succs(b *ir.Block) []*ir.Block {
	var out []*ir.Block
	seen := map[*ir.Block]bool{}
	add := func(v interface{}) {
		if t, ok := v.(*ir.Block); ok && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	switch t := b.Term.(type) {
	case *ir.TermBr:
		add(t.Target)
	case *ir.TermCondBr:
		add(t.TargetTrue)
		add(t.TargetFalse)
	case *ir.TermSwitch:
		add(t.TargetDefault)
		for _, c := range t.Cases {
			add(c.Target)
		}
	case *ir.TermInvoke:
		add(t.NormalRetTarget)
		add(t.ExceptionRetTarget)
	case *ir.TermIndirectBr:
		for _, v := range t.ValidTargets {
			add(v)
		}
	}
	return out
}

// CFG holds the control-flow facts of one function: predecessors, reverse
// postorder, immediate dominators and natural loops.
type CFG struct {
	Func   *ir.Func
	Preds  map[*ir.Block][]*ir.Block // unique predecessors, in block order
	RPO    []*ir.Block               // reachable blocks in reverse postorder
	Index  map[*ir.Block]int         // position in RPO
	IDom   map[*ir.Block]*ir.Block   // immediate dominator (entry maps to nil)
	Loops  []*Loop                   // every natural loop, outermost first
	LoopOf map[*ir.Block]*Loop       // innermost loop containing a block
}

// Loop is a natural loop: the blocks that reach a back edge's source without
// passing through the header.
type Loop struct {
	Header  *ir.Block
	Blocks  map[*ir.Block]bool
	Latches []*ir.Block // sources of back edges, in block order
	Parent  *Loop
	Depth   int // 1 for an outermost loop
}

// Contains reports whether block b is in the loop.
func (l *Loop) Contains(b *ir.Block) bool { return l.Blocks[b] }

// NewCFG computes the control-flow facts of f. It fails on irreducible
// control flow (a cycle entered other than through a dominating header).
func NewCFG(f *ir.Func) (*CFG, error) {
	c := &CFG{Func: f, Preds: map[*ir.Block][]*ir.Block{}, Index: map[*ir.Block]int{},
		IDom: map[*ir.Block]*ir.Block{}, LoopOf: map[*ir.Block]*Loop{}}
	if len(f.Blocks) == 0 {
		return c, nil
	}
	// Reverse postorder from the entry block.
	visited := map[*ir.Block]bool{}
	var post []*ir.Block
	var dfs func(b *ir.Block)
	dfs = func(b *ir.Block) {
		visited[b] = true
		for _, s := range Succs(b) {
			if !visited[s] {
				dfs(s)
			}
		}
		post = append(post, b)
	}
	dfs(f.Blocks[0])
	for i := len(post) - 1; i >= 0; i-- {
		c.Index[post[i]] = len(c.RPO)
		c.RPO = append(c.RPO, post[i])
	}
	for _, b := range f.Blocks {
		if !visited[b] {
			continue
		}
		for _, s := range Succs(b) {
			c.Preds[s] = append(c.Preds[s], b)
		}
	}
	c.computeDominators()
	if err := c.computeLoops(); err != nil {
		return nil, err
	}
	return c, nil
}

// computeDominators is Cooper, Harvey and Kennedy's iterative algorithm.
func (c *CFG) computeDominators() {
	entry := c.RPO[0]
	idom := map[*ir.Block]*ir.Block{entry: entry}
	intersect := func(a, b *ir.Block) *ir.Block {
		for a != b {
			for c.Index[a] > c.Index[b] {
				a = idom[a]
			}
			for c.Index[b] > c.Index[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, b := range c.RPO[1:] {
			var nd *ir.Block
			for _, p := range c.Preds[b] {
				if idom[p] == nil {
					continue
				}
				if nd == nil {
					nd = p
				} else {
					nd = intersect(p, nd)
				}
			}
			if idom[b] != nd {
				idom[b] = nd
				changed = true
			}
		}
	}
	for b, d := range idom {
		c.IDom[b] = d
	}
	c.IDom[entry] = nil
}

// Dominates reports whether block a dominates block b.
func (c *CFG) Dominates(a, b *ir.Block) bool {
	for x := b; x != nil; x = c.IDom[x] {
		if x == a {
			return true
		}
	}
	return false
}

func (c *CFG) computeLoops() error {
	byHeader := map[*ir.Block]*Loop{}
	for _, b := range c.RPO {
		for _, s := range Succs(b) {
			if c.Index[s] > c.Index[b] {
				continue // forward edge
			}
			if !c.Dominates(s, b) {
				return fmt.Errorf("irreducible control flow: the edge from %s to %s enters a cycle that %s does not dominate",
					b.Ident(), s.Ident(), s.Ident())
			}
			l := byHeader[s]
			if l == nil {
				l = &Loop{Header: s, Blocks: map[*ir.Block]bool{s: true}}
				byHeader[s] = l
			}
			l.Latches = append(l.Latches, b)
			// Blocks reaching the latch without passing the header.
			work := []*ir.Block{b}
			for len(work) > 0 {
				x := work[len(work)-1]
				work = work[:len(work)-1]
				if l.Blocks[x] {
					continue
				}
				l.Blocks[x] = true
				work = append(work, c.Preds[x]...)
			}
		}
	}
	// Order loops outermost first (headers in RPO: an outer header precedes
	// its inner ones), then nest each loop in the smallest enclosing loop.
	for _, b := range c.RPO {
		if l := byHeader[b]; l != nil {
			c.Loops = append(c.Loops, l)
		}
	}
	for i, l := range c.Loops {
		for j := i - 1; j >= 0; j-- {
			if o := c.Loops[j]; o.Blocks[l.Header] && (l.Parent == nil || len(o.Blocks) < len(l.Parent.Blocks)) {
				l.Parent = o
			}
		}
		l.Depth = 1
		if l.Parent != nil {
			l.Depth = l.Parent.Depth + 1
		}
	}
	for _, l := range c.Loops { // outermost first, so inner loops overwrite
		for b := range l.Blocks {
			if cur := c.LoopOf[b]; cur == nil || cur.Depth < l.Depth {
				c.LoopOf[b] = l
			}
		}
	}
	return nil
}
