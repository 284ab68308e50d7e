package ad

import (
	"fmt"
	"hash/fnv"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// Red-black tree routines run in lockstep on a tree and its shadow trees
// (rbtree.go says why). A node of the generated code is a tuple: the
// primal node first, then one shadow node per lane. Every decision (a
// color, a null test, a comparison of nodes) is taken on the primal alone,
// and every write goes to the primal and to each shadow alike: where each
// non-null link of the primal tree has the shadow of its target in the
// shadow tree (the shadows mirror the links), they still do after the
// routine, whatever the shadow nodes' colors hold. A link read where the
// primal's is null is null in every lane, so shadows mirror null links
// too. The algorithms are libstdc++'s (the textbook red-black insertion and
// deletion, with the header node's parent, left and right standing for the
// root, leftmost and rightmost nodes): the primal tree comes out as
// libstdc++ itself leaves it.

// Fields of std::_Rb_tree_node_base, and the colors.
const (
	rbColor  = 0
	rbParent = 1
	rbLeft   = 2
	rbRight  = 3
	rbRed    = 0
	rbBlack  = 1
)

// rbNodeBase is std::_Rb_tree_node_base as the generated code sees it:
// {color, parent, left, right}, links as i8*.
var rbNodeBase = types.NewStruct(types.I32, types.I8Ptr, types.I8Ptr, types.I8Ptr)

// rbNode is a node in every lane (i8*): the primal first.
type rbNode []value.Value

// rbVar is a variable holding a node in every lane.
type rbVar []*ir.InstAlloca

// rbGen emits one routine's body into f.
type rbGen struct {
	f     *ir.Func
	entry *ir.Block // the variables' allocas
	blk   *ir.Block // where emission continues
}

// rbHelper returns (creating once per module) the routine op for nodes of
// pointer type nt in lanes lanes (the primal and lanes-1 shadows), in
// derivatives of order level:
//   - RbInsert: void(i1 left, x[lanes], p[lanes], header[lanes], i8* msg),
//     each shadow of x noted in the shadow set as a tree node
//     (shadowlife.go; msg: the error where no set is open);
//   - RbErase: nt(z[lanes], header[lanes]), returning the primal z;
//   - RbIncrement, RbDecrement (lanes 2): nt(x, sx, nt want, i8* msg), the
//     shadow of the node the walk reaches from x, stopping the program
//     with msg where the primal walk does not reach want (libstdc++'s
//     result for the primal).
func (d *differ) rbHelper(op rbTreeOp, nt types.Type, lanes, level int) *ir.Func {
	h := fnv.New64a()
	h.Write([]byte(nt.LLString()))
	name := fmt.Sprintf("__gozyme_rb_%s%d_%x", rbOpNames[op], lanes, h.Sum64())
	if op == rbInsert {
		name += fmt.Sprintf("_o%d", level) // its shadow set's (shadowset.go)
	}
	for _, f := range d.m.Funcs {
		if f.Name() == name {
			return f
		}
	}
	var params []*ir.Param
	nodes := func(what string) {
		for i := 0; i < lanes; i++ {
			params = append(params, ir.NewParam(fmt.Sprintf("%s%d", what, i), nt))
		}
	}
	ret := types.Type(nt)
	switch op {
	case rbInsert:
		params = append(params, ir.NewParam("left", types.I1))
		nodes("x")
		nodes("p")
		nodes("h")
		params = append(params, ir.NewParam("msg", types.I8Ptr))
		ret = types.Void
	case rbErase:
		nodes("z")
		nodes("h")
	default:
		nodes("x")
		params = append(params, ir.NewParam("want", nt), ir.NewParam("msg", types.I8Ptr))
	}
	f := d.m.NewFunc(name, ret, params...)
	f.Linkage = enum.LinkageInternal
	g := &rbGen{f: f, entry: f.NewBlock("")}
	g.blk = f.NewBlock("")
	node := func(at int) rbNode {
		n := make(rbNode, lanes)
		for i := range n {
			n[i] = g.blk.NewBitCast(params[at+i], types.I8Ptr)
		}
		return n
	}
	switch op {
	case rbInsert:
		x := node(1)
		for _, s := range x[1:] {
			g.blk.NewCall(d.shadowSetRuntime(level).treeNode, s, params[1+3*lanes])
		}
		g.insert(params[0], x, node(1+lanes), node(1+2*lanes))
		g.blk.NewRet(nil)
	case rbErase:
		z := node(0)
		g.erase(z, node(lanes))
		g.blk.NewRet(params[0])
	default:
		var r rbNode
		if op == rbIncrement {
			r = g.increment(node(0))
		} else {
			r = g.decrement(node(0))
		}
		want := g.blk.NewBitCast(params[2], types.I8Ptr)
		g.ifElse(g.blk.NewICmp(enum.IPredNE, r[0], want), func() {
			g.blk.NewCall(d.unknownTargetStop(), params[3])
		}, nil)
		g.blk.NewRet(g.blk.NewBitCast(r[1], nt))
	}
	g.entry.NewBr(f.Blocks[1])
	return f
}

// rbOpNames name the helpers.
var rbOpNames = map[rbTreeOp]string{rbIncrement: "increment", rbDecrement: "decrement", rbInsert: "insert", rbErase: "erase"}

func (g *rbGen) newBlock() *ir.Block { return g.f.NewBlock("") }

// addr is the address of field of node p.
func (g *rbGen) addr(p value.Value, field int) value.Value {
	n := g.blk.NewBitCast(p, types.NewPointer(rbNodeBase))
	return g.blk.NewGetElementPtr(rbNodeBase, n, constant.NewInt(types.I32, 0), constant.NewInt(types.I32, int64(field)))
}

// link reads link field of n in every lane; null in every lane where the
// primal's is.
func (g *rbGen) link(n rbNode, field int) rbNode {
	out := make(rbNode, len(n))
	out[0] = g.blk.NewLoad(types.I8Ptr, g.addr(n[0], field))
	null := g.blk.NewICmp(enum.IPredEQ, out[0], constant.NewNull(types.I8Ptr))
	for i := 1; i < len(n); i++ {
		out[i] = g.blk.NewSelect(null, constant.NewNull(types.I8Ptr), g.blk.NewLoad(types.I8Ptr, g.addr(n[i], field)))
	}
	return out
}

// setLink writes v into link field of n, lane by lane.
func (g *rbGen) setLink(n rbNode, field int, v rbNode) {
	for i := range n {
		g.blk.NewStore(v[i], g.addr(n[i], field))
	}
}

// null is the null node.
func (g *rbGen) null(like rbNode) rbNode {
	n := make(rbNode, len(like))
	for i := range n {
		n[i] = constant.NewNull(types.I8Ptr)
	}
	return n
}

// color is the primal's color of n.
func (g *rbGen) color(n rbNode) value.Value {
	return g.blk.NewLoad(types.I32, g.addr(n[0], rbColor))
}

// setColor colors n c in every lane.
func (g *rbGen) setColor(n rbNode, c value.Value) {
	for i := range n {
		g.blk.NewStore(c, g.addr(n[i], rbColor))
	}
}

func rbColorOf(c int64) value.Value { return constant.NewInt(types.I32, c) }

// is compares two nodes (their primals).
func (g *rbGen) is(a, b rbNode) value.Value { return g.blk.NewICmp(enum.IPredEQ, a[0], b[0]) }

func (g *rbGen) isNull(a rbNode) value.Value {
	return g.blk.NewICmp(enum.IPredEQ, a[0], constant.NewNull(types.I8Ptr))
}

func (g *rbGen) notNull(a rbNode) value.Value {
	return g.blk.NewICmp(enum.IPredNE, a[0], constant.NewNull(types.I8Ptr))
}

func (g *rbGen) isRed(n rbNode) value.Value {
	return g.blk.NewICmp(enum.IPredEQ, g.color(n), rbColorOf(rbRed))
}

func (g *rbGen) isBlack(n rbNode) value.Value {
	return g.blk.NewICmp(enum.IPredEQ, g.color(n), rbColorOf(rbBlack))
}

// nullOrBlack is n == null || n is black.
func (g *rbGen) nullOrBlack(n rbNode) value.Value {
	return g.or(g.isNull(n), func() value.Value { return g.isBlack(n) })
}

// and is a && b(), b emitted where a holds.
func (g *rbGen) and(a value.Value, b func() value.Value) value.Value {
	from, rhs, done := g.blk, g.newBlock(), g.newBlock()
	from.NewCondBr(a, rhs, done)
	g.blk = rhs
	bv := b()
	g.blk.NewBr(done)
	p := done.NewPhi(ir.NewIncoming(constant.False, from), ir.NewIncoming(bv, g.blk))
	g.blk = done
	return p
}

// or is a || b(), b emitted where a does not hold.
func (g *rbGen) or(a value.Value, b func() value.Value) value.Value {
	from, rhs, done := g.blk, g.newBlock(), g.newBlock()
	from.NewCondBr(a, done, rhs)
	g.blk = rhs
	bv := b()
	g.blk.NewBr(done)
	p := done.NewPhi(ir.NewIncoming(constant.True, from), ir.NewIncoming(bv, g.blk))
	g.blk = done
	return p
}

// ifElse emits if cond { then() } else { els() } (els may be nil).
func (g *rbGen) ifElse(cond value.Value, then, els func()) {
	tb, done := g.newBlock(), g.newBlock()
	eb := done
	if els != nil {
		eb = g.newBlock()
	}
	g.blk.NewCondBr(cond, tb, eb)
	for _, arm := range []struct {
		b    *ir.Block
		emit func()
	}{{tb, then}, {eb, els}} {
		if arm.emit == nil {
			continue
		}
		g.blk = arm.b
		arm.emit()
		if g.blk.Term == nil {
			g.blk.NewBr(done)
		}
	}
	g.blk = done
}

// rbLoop is a loop being emitted: breaks leave to exit.
type rbLoop struct{ exit *ir.Block }

// loop emits body repeated until it breaks.
func (g *rbGen) loop(body func(l *rbLoop)) {
	head, exit := g.newBlock(), g.newBlock()
	g.blk.NewBr(head)
	g.blk = head
	body(&rbLoop{exit})
	if g.blk.Term == nil {
		g.blk.NewBr(head)
	}
	g.blk = exit
}

// breakIf leaves loop l where cond holds.
func (g *rbGen) breakIf(l *rbLoop, cond value.Value) {
	next := g.newBlock()
	g.blk.NewCondBr(cond, l.exit, next)
	g.blk = next
}

// breakOut leaves loop l (what follows in the same arm is never run).
func (g *rbGen) breakOut(l *rbLoop) {
	g.blk.NewBr(l.exit)
	g.blk = g.newBlock()
}

// newVar is a variable holding init.
func (g *rbGen) newVar(init rbNode) rbVar {
	v := make(rbVar, len(init))
	for i := range v {
		v[i] = g.entry.NewAlloca(types.I8Ptr)
	}
	g.set(v, init)
	return v
}

func (g *rbGen) get(v rbVar) rbNode {
	n := make(rbNode, len(v))
	for i, a := range v {
		n[i] = g.blk.NewLoad(types.I8Ptr, a)
	}
	return n
}

func (g *rbGen) set(v rbVar, n rbNode) {
	for i, a := range v {
		g.blk.NewStore(n[i], a)
	}
}

// other is the opposite side.
func other(side int) int {
	if side == rbLeft {
		return rbRight
	}
	return rbLeft
}

// rotate rotates the subtree at x toward side: rotate(x, h, rbLeft) is
// libstdc++'s rotate_left (x's right child takes its place, x becoming its
// left child). h is the header, whose parent is the root.
func (g *rbGen) rotate(x, h rbNode, side int) {
	away := other(side)
	y := g.link(x, away)
	inner := g.link(y, side)
	g.setLink(x, away, inner)
	g.ifElse(g.notNull(inner), func() { g.setLink(inner, rbParent, x) }, nil)
	xp := g.link(x, rbParent)
	g.setLink(y, rbParent, xp)
	g.ifElse(g.is(x, g.link(h, rbParent)), func() {
		g.setLink(h, rbParent, y)
	}, func() {
		g.ifElse(g.is(x, g.link(xp, rbLeft)), func() {
			g.setLink(xp, rbLeft, y)
		}, func() {
			g.setLink(xp, rbRight, y)
		})
	})
	g.setLink(y, side, x)
	g.setLink(x, rbParent, y)
}

// insert links the new node x as the left (left) or right child of p and
// rebalances (_Rb_tree_insert_and_rebalance).
func (g *rbGen) insert(left value.Value, x, p, h rbNode) {
	g.setLink(x, rbParent, p)
	g.setLink(x, rbLeft, g.null(x))
	g.setLink(x, rbRight, g.null(x))
	g.setColor(x, rbColorOf(rbRed))
	g.ifElse(left, func() {
		g.setLink(p, rbLeft, x) // the leftmost too where p is the header
		g.ifElse(g.is(p, h), func() {
			g.setLink(h, rbParent, x)
			g.setLink(h, rbRight, x)
		}, func() {
			g.ifElse(g.is(p, g.link(h, rbLeft)), func() { g.setLink(h, rbLeft, x) }, nil)
		})
	}, func() {
		g.setLink(p, rbRight, x)
		g.ifElse(g.is(p, g.link(h, rbRight)), func() { g.setLink(h, rbRight, x) }, nil)
	})
	xv := g.newVar(x)
	g.loop(func(l *rbLoop) {
		x := g.get(xv)
		g.breakIf(l, g.is(x, g.link(h, rbParent)))
		xp := g.link(x, rbParent)
		g.breakIf(l, g.blk.NewICmp(enum.IPredNE, g.color(xp), rbColorOf(rbRed)))
		xpp := g.link(xp, rbParent)
		g.ifElse(g.is(xp, g.link(xpp, rbLeft)), func() {
			g.insertFix(xv, xp, xpp, h, rbLeft)
		}, func() {
			g.insertFix(xv, xp, xpp, h, rbRight)
		})
	})
	g.setColor(g.link(h, rbParent), rbColorOf(rbBlack))
}

// insertFix is one step of the insertion's rebalancing where x's red
// parent xp is the side child of xpp.
func (g *rbGen) insertFix(xv rbVar, xp, xpp, h rbNode, side int) {
	away := other(side)
	y := g.link(xpp, away) // the uncle
	g.ifElse(g.and(g.notNull(y), func() value.Value { return g.isRed(y) }), func() {
		g.setColor(xp, rbColorOf(rbBlack))
		g.setColor(y, rbColorOf(rbBlack))
		g.setColor(xpp, rbColorOf(rbRed))
		g.set(xv, xpp)
	}, func() {
		g.ifElse(g.is(g.get(xv), g.link(xp, away)), func() {
			g.set(xv, xp)
			g.rotate(xp, h, side)
		}, nil)
		g.setColor(g.link(g.get(xv), rbParent), rbColorOf(rbBlack))
		g.setColor(xpp, rbColorOf(rbRed))
		g.rotate(xpp, h, away)
	})
}

// erase unlinks z from the tree with header h and rebalances
// (_Rb_tree_rebalance_for_erase, which returns z).
func (g *rbGen) erase(z, h rbNode) {
	null := g.null(z)
	yv, xv, xpv := g.newVar(z), g.newVar(null), g.newVar(null)
	g.ifElse(g.isNull(g.link(z, rbLeft)), func() {
		g.set(xv, g.link(z, rbRight)) // x may be null
	}, func() {
		g.ifElse(g.isNull(g.link(z, rbRight)), func() {
			g.set(xv, g.link(z, rbLeft))
		}, func() {
			// Two children: y is z's successor.
			g.set(yv, g.link(z, rbRight))
			g.loop(func(l *rbLoop) {
				next := g.link(g.get(yv), rbLeft)
				g.breakIf(l, g.isNull(next))
				g.set(yv, next)
			})
			g.set(xv, g.link(g.get(yv), rbRight))
		})
	})
	y := g.get(yv)
	g.ifElse(g.blk.NewICmp(enum.IPredNE, y[0], z[0]), func() {
		// y takes z's place.
		x := g.get(xv)
		zl := g.link(z, rbLeft)
		g.setLink(zl, rbParent, y)
		g.setLink(y, rbLeft, zl)
		g.ifElse(g.blk.NewICmp(enum.IPredNE, y[0], g.link(z, rbRight)[0]), func() {
			yp := g.link(y, rbParent)
			g.set(xpv, yp)
			g.ifElse(g.notNull(x), func() { g.setLink(x, rbParent, yp) }, nil)
			g.setLink(yp, rbLeft, x)
			zr := g.link(z, rbRight)
			g.setLink(y, rbRight, zr)
			g.setLink(zr, rbParent, y)
		}, func() {
			g.set(xpv, y)
		})
		g.replaceChild(z, y, h)
		g.setLink(y, rbParent, g.link(z, rbParent))
		cy, cz := g.color(y), g.color(z)
		g.setColor(y, cz)
		g.setColor(z, cy)
		g.set(yv, z) // the node actually removed
	}, func() {
		x := g.get(xv)
		zp := g.link(z, rbParent)
		g.set(xpv, zp)
		g.ifElse(g.notNull(x), func() { g.setLink(x, rbParent, zp) }, nil)
		g.replaceChild(z, x, h)
		g.ifElse(g.is(g.link(h, rbLeft), z), func() {
			g.ifElse(g.isNull(g.link(z, rbRight)), func() {
				g.setLink(h, rbLeft, g.link(z, rbParent)) // the header where z was the root
			}, func() {
				g.setLink(h, rbLeft, g.extreme(x, rbLeft))
			})
		}, nil)
		g.ifElse(g.is(g.link(h, rbRight), z), func() {
			g.ifElse(g.isNull(g.link(z, rbLeft)), func() {
				g.setLink(h, rbRight, g.link(z, rbParent))
			}, func() {
				g.setLink(h, rbRight, g.extreme(x, rbRight))
			})
		}, nil)
	})
	g.ifElse(g.blk.NewICmp(enum.IPredNE, g.color(g.get(yv)), rbColorOf(rbRed)), func() {
		g.loop(func(l *rbLoop) {
			x := g.get(xv)
			g.breakIf(l, g.is(x, g.link(h, rbParent)))
			g.breakIf(l, g.and(g.notNull(x), func() value.Value { return g.blk.NewICmp(enum.IPredNE, g.color(x), rbColorOf(rbBlack)) }))
			xp := g.get(xpv)
			g.ifElse(g.is(x, g.link(xp, rbLeft)), func() {
				g.eraseFix(l, xv, xpv, h, rbLeft)
			}, func() {
				g.eraseFix(l, xv, xpv, h, rbRight)
			})
		})
		x := g.get(xv)
		g.ifElse(g.notNull(x), func() { g.setColor(x, rbColorOf(rbBlack)) }, nil)
	}, nil)
}

// replaceChild puts n where z hangs: the root, or z's parent's child.
func (g *rbGen) replaceChild(z, n, h rbNode) {
	g.ifElse(g.is(g.link(h, rbParent), z), func() {
		g.setLink(h, rbParent, n)
	}, func() {
		zp := g.link(z, rbParent)
		g.ifElse(g.is(g.link(zp, rbLeft), z), func() {
			g.setLink(zp, rbLeft, n)
		}, func() {
			g.setLink(zp, rbRight, n)
		})
	})
}

// extreme follows side links from the non-null n to the end (the minimum
// for rbLeft, the maximum for rbRight).
func (g *rbGen) extreme(n rbNode, side int) rbNode {
	v := g.newVar(n)
	g.loop(func(l *rbLoop) {
		next := g.link(g.get(v), side)
		g.breakIf(l, g.isNull(next))
		g.set(v, next)
	})
	return g.get(v)
}

// eraseFix is one step of the deletion's rebalancing where x (black or
// null) is the side child of xp; it leaves loop l where it is done.
func (g *rbGen) eraseFix(l *rbLoop, xv, xpv rbVar, h rbNode, side int) {
	away := other(side)
	xp := g.get(xpv)
	wv := g.newVar(g.link(xp, away)) // the sibling
	g.ifElse(g.isRed(g.get(wv)), func() {
		g.setColor(g.get(wv), rbColorOf(rbBlack))
		g.setColor(xp, rbColorOf(rbRed))
		g.rotate(xp, h, side)
		g.set(wv, g.link(xp, away))
	}, nil)
	w := g.get(wv)
	both := g.and(g.nullOrBlack(g.link(w, side)), func() value.Value { return g.nullOrBlack(g.link(w, away)) })
	g.ifElse(both, func() {
		g.setColor(w, rbColorOf(rbRed))
		g.set(xv, xp)
		g.set(xpv, g.link(xp, rbParent))
	}, func() {
		g.ifElse(g.nullOrBlack(g.link(w, away)), func() {
			g.setColor(g.link(w, side), rbColorOf(rbBlack))
			g.setColor(w, rbColorOf(rbRed))
			g.rotate(w, h, away)
			g.set(wv, g.link(xp, away))
		}, nil)
		w := g.get(wv)
		g.setColor(w, g.color(xp))
		g.setColor(xp, rbColorOf(rbBlack))
		wa := g.link(w, away)
		g.ifElse(g.notNull(wa), func() { g.setColor(wa, rbColorOf(rbBlack)) }, nil)
		g.rotate(xp, h, side)
		g.breakOut(l)
	})
}

// increment is the in-order successor of x (_Rb_tree_increment).
func (g *rbGen) increment(x rbNode) rbNode {
	xv := g.newVar(x)
	g.ifElse(g.notNull(g.link(x, rbRight)), func() {
		g.set(xv, g.extreme(g.link(x, rbRight), rbLeft))
	}, func() {
		yv := g.newVar(g.link(x, rbParent))
		g.loop(func(l *rbLoop) {
			y := g.get(yv)
			g.breakIf(l, g.blk.NewICmp(enum.IPredNE, g.get(xv)[0], g.link(y, rbRight)[0]))
			g.set(xv, y)
			g.set(yv, g.link(y, rbParent))
		})
		y := g.get(yv)
		g.ifElse(g.blk.NewICmp(enum.IPredNE, g.link(g.get(xv), rbRight)[0], y[0]), func() { g.set(xv, y) }, nil)
	})
	return g.get(xv)
}

// decrement is the in-order predecessor of x (_Rb_tree_decrement); the
// header's is the rightmost node.
func (g *rbGen) decrement(x rbNode) rbNode {
	xv := g.newVar(x)
	header := g.and(g.isRed(x), func() value.Value { return g.is(g.link(g.link(x, rbParent), rbParent), x) })
	g.ifElse(header, func() {
		g.set(xv, g.link(x, rbRight))
	}, func() {
		g.ifElse(g.notNull(g.link(x, rbLeft)), func() {
			g.set(xv, g.extreme(g.link(x, rbLeft), rbRight))
		}, func() {
			yv := g.newVar(g.link(x, rbParent))
			g.loop(func(l *rbLoop) {
				y := g.get(yv)
				g.breakIf(l, g.blk.NewICmp(enum.IPredNE, g.get(xv)[0], g.link(y, rbLeft)[0]))
				g.set(xv, y)
				g.set(yv, g.link(y, rbParent))
			})
			g.set(xv, g.get(yv))
		})
	})
	return g.get(xv)
}
