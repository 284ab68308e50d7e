package irutil

import "strings"

// Bookkeeping is the kind of a bookkeeping intrinsic: a call that only
// annotates the program for the optimizer or the debugger. It computes no
// value the program uses, so it carries no derivative.
type Bookkeeping int

const (
	NotBookkeeping Bookkeeping = iota
	// DebugInfo is llvm.dbg.*: it touches no memory.
	DebugInfo
	// Assumption is llvm.assume and llvm.experimental.noalias.scope.decl:
	// LLVM's alias analysis treats them as touching no memory whatever
	// their declared attributes say.
	Assumption
	// Lifetime is llvm.lifetime.start/end: it marks where an object is
	// live, so it stays ordered with the accesses to the memory it names.
	Lifetime
	// Invariant is llvm.invariant.start/end: it marks memory as constant,
	// so it stays ordered with the accesses to that memory.
	Invariant
)

// BookkeepingIntrinsic returns the kind of bookkeeping intrinsic name
// (a callee's name without its @) is, NotBookkeeping for any other.
func BookkeepingIntrinsic(name string) Bookkeeping {
	if !strings.HasPrefix(name, "llvm.") {
		return NotBookkeeping
	}
	switch {
	case strings.HasPrefix(name, "llvm.dbg."):
		return DebugInfo
	case name == "llvm.assume" || name == "llvm.experimental.noalias.scope.decl":
		return Assumption
	case strings.HasPrefix(name, "llvm.lifetime."):
		return Lifetime
	case strings.HasPrefix(name, "llvm.invariant."):
		return Invariant
	}
	return NotBookkeeping
}
