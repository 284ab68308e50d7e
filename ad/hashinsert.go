package ad

import (
	"strings"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
)

// New keys in a std::unordered_map that carries derivatives. libstdc++'s
// hash table links a new node into its buckets in
// _Hashtable::_M_insert_unique_node (_M_insert_multi_node for the multi
// forms), after the caller has allocated the node and built its key in it.
// The differentiated code does the same to the shadow table: a shadow node
// is allocated and linked where the primal's is, its value's derivative is
// right, but the key, the cached hash code, the element count and the
// bucket count after a rehash are integers, which no sweep writes into
// shadow memory. While the call runs the shadow is walked in lockstep with
// the primal (keys are compared on the primal only), so derivatives inside
// it are right; afterwards the caller's shadow map holds a node without
// its key, and looking the key up there (the tangent of the new entry, a
// later call) finds nothing: a silent zero. Inserting is decided at run
// time (operator[] inserts only a missing key), so the forward sweep stops
// the program where a node is inserted into a table with a shadow, naming
// the source location. A map local to the differentiated code stops too,
// though its shadow is only walked in lockstep (gozyme cannot tell the
// caller's map from a local one there).

// isHashInsert reports a call of libstdc++'s hash-table node insertion.
func isHashInsert(c *ir.InstCall) bool {
	name := irfacts.CalleeName(c)
	return strings.HasPrefix(name, "_ZNSt10_Hashtable") &&
		(strings.Contains(name, "21_M_insert_unique_node") || strings.Contains(name, "20_M_insert_multi_node"))
}

// hashInsertStop is the run-time stop to put before call c of f when it
// inserts a node into a hash table with a shadow (nil otherwise).
func (d *differ) hashInsertStop(f *ir.Func, c *ir.InstCall, act *activity.Info) []ir.Instruction {
	if !isHashInsert(c) || len(c.Args) == 0 || !act.HasShadow(c.Args[0]) {
		return nil
	}
	stop := ir.NewCall(d.unknownTargetStop(), d.message(c, "gozyme: the derivative of "+f.Name()+
		" inserts a new key into a std::unordered_map that carries derivatives: its shadow map would get a node without the key (and stale counts), so the key's derivative could not be found there; insert every key into both the map and its shadow before differentiating"))
	return []ir.Instruction{stop}
}
