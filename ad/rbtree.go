package ad

import (
	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// std::map, std::set and their multi forms keep their nodes in a
// red-black tree whose links libstdc++'s compiled routines move
// (_Rb_tree_increment, _Rb_tree_decrement, _Rb_tree_insert_and_rebalance,
// _Rb_tree_rebalance_for_erase: no bitcode, in libstdc++.so). They move
// pointers and colors, never the values the nodes hold, so they carry no
// derivative: the reverse sweep has nothing to do for them. The shadow of
// a tree is a tree of the shadow nodes, linked as the primal's (the shadow
// map a user passes with enzyme_dup, built by the same insertions; the
// shadow of one the differentiated code builds, whose inlined code stores
// the shadow of each pointer it links into shadow memory). A routine keeps
// it so by doing to the shadow tree what it does to the primal.
//
// Calling the routine itself on the shadow tree would do that only where
// the shadow's colors are the primal's: its rebalancing and the
// predecessor of the root (is it the header?) depend on them. The inlined
// code that copies a tree (a map copied or assigned: _M_clone_node copies
// each node's color) writes the colors as integers, which the shadow does
// not receive, and memset clears of links are not mirrored either. So the
// routines are run in lockstep instead (rbtreegen.go): every decision
// taken on the primal tree, every write made to the primal and the shadow
// alike. Where each non-null link of the primal has its target's shadow
// in the shadow (what the inlined code's mirrored pointer stores make
// true), it still does after the routine, and the walks reach the shadow
// of the node they reach in the primal. The insertion and the erase
// replace libstdc++'s call (the primal is rebalanced by the same
// algorithm); the walks keep it, and the lockstep walk stops the program
// where it does not reach libstdc++'s node.
//
// A call none of whose nodes has a shadow (a map passed enzyme_const, or
// one no derivative reaches) is left as it is; one where some do and some
// do not stops the link.

type rbTreeOp = irfacts.RbTreeOp

const (
	rbNone      = irfacts.RbNone
	rbIncrement = irfacts.RbIncrement
	rbDecrement = irfacts.RbDecrement
	rbInsert    = irfacts.RbInsert
	rbErase     = irfacts.RbErase
)

func rbTreeOpOf(c *ir.InstCall) rbTreeOp { return irfacts.RbTreeOpOf(c) }

// rbNodeArgs are the indices of c's node (pointer) arguments.
func rbNodeArgs(op rbTreeOp) []int {
	switch op {
	case rbInsert:
		return []int{1, 2, 3}
	case rbErase:
		return []int{0, 1}
	}
	return []int{0}
}

// rbShadowed reports whether tree routine call c's nodes have shadows:
// all of them (true), none (false), or some, an error.
func (d *differ) rbShadowed(f *ir.Func, act *activity.Info, c *ir.InstCall) (bool, error) {
	op := rbTreeOpOf(c)
	n := 0
	for _, i := range rbNodeArgs(op) {
		a := irfacts.Unwrap(c.Args[i])
		if act.HasShadow(a) {
			n++
			if d.mayAliasPrimal(a) {
				return false, errorAt(f, c, "%s moves tree nodes (std::map, std::set) whose shadows may be the nodes themselves (run-time activity): the shadow tree would not be kept", describe(c))
			}
		}
	}
	if err := rbTypesAgree(f, c); err != nil {
		return false, err
	}
	switch {
	case n == 0:
		if op != rbInsert && act.HasShadow(c) {
			return false, errorAt(f, c, "%s returns a node with a shadow from a node without one", describe(c))
		}
		return false, nil
	case n < len(rbNodeArgs(op)):
		return false, errorAt(f, c, "%s is given tree nodes (std::map, std::set) some of which have shadows and some not: pass every map the differentiated code links together with a shadow (enzyme_dup), or none", describe(c))
	}
	return true, nil
}

// rbTypesAgree checks that c's nodes (and its result) are of one pointer
// type, the helpers' parameter type.
func rbTypesAgree(f *ir.Func, c *ir.InstCall) error {
	op := rbTreeOpOf(c)
	t := irfacts.Unwrap(c.Args[rbNodeArgs(op)[0]]).Type()
	for _, i := range rbNodeArgs(op) {
		if !types.Equal(irfacts.Unwrap(c.Args[i]).Type(), t) {
			return errorAt(f, c, "%s: tree nodes of different pointer types", describe(c))
		}
	}
	if op != rbInsert && !types.Equal(c.Typ, t) {
		return errorAt(f, c, "%s: the node returned and the node given differ in pointer type", describe(c))
	}
	return nil
}

// rbInsertMessage is the run-time error of an insertion where no shadow
// set is open (shadowlife.go).
func (d *differ) rbInsertMessage(f *ir.Func, c *ir.InstCall) value.Value {
	return d.message(c, "gozyme: the derivative of "+f.Name()+" inserts into a std::map or std::set in split mode (__enzyme_augmentfwd, __enzyme_reverse) or on a parallel region's threads, where gozyme does not follow which tree nodes outlive the derivative")
}

// rbWalkMessage is the run-time error of a lockstep walk that does not
// reach libstdc++'s node.
func (d *differ) rbWalkMessage(f *ir.Func, c *ir.InstCall) value.Value {
	return d.message(c, "gozyme: the derivative of "+f.Name()+": walking a std::map or std::set tree in step with its shadow did not reach the node libstdc++'s "+irfacts.CalleeName(c)+" returns")
}

// rbReverseForward is the forward sweep's side of tree routine call x,
// whose clone is c: the shadow of a walk's result, or the lockstep
// insertion or erase in place of c. handled is false where x's nodes have
// no shadows.
func (r *reverseGen) rbReverseForward(b *ir.Block, x *ir.InstCall, c ir.Instruction) (out []ir.Instruction, handled bool, err error) {
	op := rbTreeOpOf(x)
	shadowed, err := r.d.rbShadowed(r.f, r.act, x)
	if err != nil || !shadowed {
		return nil, false, err
	}
	shadow := func(v value.Value) (value.Value, error) { return r.shadowOf(x, v) }
	switch op {
	case rbIncrement, rbDecrement:
		sx, err := shadow(x.Args[0])
		if err != nil {
			return nil, true, err
		}
		h := r.d.rbHelper(op, x.Typ, 2, r.d.shadowLevel(r.f))
		sc := ir.NewCall(h, irfacts.Unwrap(x.Args[0]), sx, c.(value.Value), r.d.rbWalkMessage(r.f, x))
		r.shadow[x] = sc
		r.blockOf[sc] = b
		return []ir.Instruction{sc}, true, nil
	}
	if op == rbInsert && !r.tracksShadowLife() {
		return nil, true, errorAt(r.f, x, "%s links a node into a std::map or std::set in a parallel region or GPU kernel, whose shadow trees gozyme does not keep", describe(x))
	}
	cc := c.(*ir.InstCall)
	args, err := rbLockstepArgs(x, 2, func(_ int, v value.Value) (value.Value, error) { return shadow(v) })
	if err != nil {
		return nil, true, err
	}
	if op == rbInsert {
		args = append(args, r.d.rbInsertMessage(r.f, x))
	}
	cc.Callee = r.d.rbHelper(op, irfacts.Unwrap(x.Args[rbNodeArgs(op)[0]]).Type(), 2, r.d.shadowLevel(r.f))
	cc.Args = args
	if op == rbErase && r.act.HasShadow(x) {
		// The routine returns the node it unlinks, z.
		if r.shadow[x], err = shadow(x.Args[0]); err != nil {
			return nil, true, err
		}
	}
	return nil, true, nil
}

// rbLockstepArgs are the arguments of the lockstep insertion or erase
// for call x in lanes lanes: each node argument, primal (still the primal
// value) then its shadow in each lane (shadowIn(lane, node)).
func rbLockstepArgs(x *ir.InstCall, lanes int, shadowIn func(lane int, v value.Value) (value.Value, error)) ([]value.Value, error) {
	var args []value.Value
	if rbTreeOpOf(x) == rbInsert {
		args = append(args, irfacts.Unwrap(x.Args[0]))
	}
	for _, i := range rbNodeArgs(rbTreeOpOf(x)) {
		a := irfacts.Unwrap(x.Args[i])
		args = append(args, a)
		for k := 1; k < lanes; k++ {
			s, err := shadowIn(k-1, a)
			if err != nil {
				return nil, err
			}
			args = append(args, s)
		}
	}
	return args, nil
}

// rbForwardCall is forward mode's rule for tree routine call (see
// rbReverseForward), in every lane. handled is false where its nodes have
// no shadows.
func (fg *forwardGen) rbForwardCall(call *ir.InstCall) ([]ir.Instruction, bool, error) {
	op := rbTreeOpOf(call)
	shadowed, err := fg.d.rbShadowed(fg.f, fg.act, call)
	if err != nil || !shadowed {
		return nil, err != nil, err
	}
	if op == rbIncrement || op == rbDecrement {
		clone, err := irutil.CloneInst(call, func(v value.Value) value.Value { return v })
		if err != nil {
			return nil, true, errorAt(fg.f, call, "%v", err)
		}
		fg.vmap[call] = clone.(value.Value)
		out := []ir.Instruction{clone}
		h := fg.d.rbHelper(op, call.Typ, 2, fg.d.shadowLevel(fg.f))
		msg := fg.d.rbWalkMessage(fg.f, call)
		for _, lane := range fg.lanes {
			fg.tan = lane
			sx, err := fg.tangentOf(call, call.Args[0])
			if err != nil {
				return nil, true, err
			}
			sc := ir.NewCall(h, irfacts.Unwrap(call.Args[0]), sx, clone.(value.Value), msg)
			lane[call] = sc
			out = append(out, sc)
		}
		return out, true, nil
	}
	lanes := 1 + len(fg.lanes)
	args, err := rbLockstepArgs(call, lanes, func(k int, v value.Value) (value.Value, error) {
		fg.tan = fg.lanes[k]
		return fg.tangentOf(call, v)
	})
	if err != nil {
		return nil, true, err
	}
	if op == rbInsert {
		args = append(args, fg.d.rbInsertMessage(fg.f, call))
	}
	hc := ir.NewCall(fg.d.rbHelper(op, irfacts.Unwrap(call.Args[rbNodeArgs(op)[0]]).Type(), lanes, fg.d.shadowLevel(fg.f)), args...)
	if op == rbErase {
		hc.Typ = call.Typ
		fg.vmap[call] = hc
		if fg.needsTangent(call) {
			for _, lane := range fg.lanes {
				fg.tan = lane
				sz, err := fg.tangentOf(call, call.Args[0])
				if err != nil {
					return nil, true, err
				}
				lane[call] = sz
			}
		}
	}
	return []ir.Instruction{hc}, true, nil
}
