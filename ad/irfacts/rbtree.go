package irfacts

import (
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// RbTreeOp names one of libstdc++'s compiled red-black tree routines,
// which std::map, std::set and their multi forms call from inlined code:
// they move node links and colors, never the values the nodes hold.
type RbTreeOp int

// The routines, by what they do.
const (
	RbNone      RbTreeOp = iota
	RbIncrement          // _Rb_tree_increment(node): the in-order successor
	RbDecrement          // _Rb_tree_decrement(node): the in-order predecessor
	RbInsert             // _Rb_tree_insert_and_rebalance(left, node, parent, header)
	RbErase              // _Rb_tree_rebalance_for_erase(node, header): unlinks node, returns it
)

// rbTreeRoutines maps the routines' mangled names (const and non-const
// forms) to what they do.
var rbTreeRoutines = map[string]RbTreeOp{
	"_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base":                   RbIncrement,
	"_ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base":                  RbIncrement,
	"_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base":                   RbDecrement,
	"_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base":                  RbDecrement,
	"_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_": RbInsert,
	"_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_":      RbErase,
}

// RbTreeOpOf reports which tree routine call c calls, RbNone where it
// calls none or its arguments are not the routine's (one pointer and a
// pointer result for the walks; a bool and three pointers for the insert;
// two pointers and a pointer result for the erase).
func RbTreeOpOf(c *ir.InstCall) RbTreeOp {
	op := rbTreeRoutines[CalleeName(c)]
	ptrs := func(from int) bool {
		for _, a := range c.Args[from:] {
			if !types.IsPointer(Unwrap(a).Type()) {
				return false
			}
		}
		return true
	}
	switch op {
	case RbIncrement, RbDecrement:
		if len(c.Args) == 1 && ptrs(0) && types.IsPointer(c.Typ) {
			return op
		}
	case RbInsert:
		if len(c.Args) == 4 && types.Equal(Unwrap(c.Args[0]).Type(), types.I1) && ptrs(1) && types.Equal(c.Typ, types.Void) {
			return op
		}
	case RbErase:
		if len(c.Args) == 2 && ptrs(0) && types.IsPointer(c.Typ) {
			return op
		}
	}
	return RbNone
}
