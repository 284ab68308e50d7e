package typeanalysis

import (
	"fmt"
	"sort"
	"strings"
)

// Tree is what a value's bytes hold, keyed by offset paths, as Enzyme's
// TypeTree: the first offset of a path is a byte offset in the value itself
// (for a scalar, 0); each further offset is a byte offset in the memory the
// pointer found at the previous offsets points to. So for a double* p,
// {[0]:Pointer, [0,0]:Float@double}; for a pointer to a struct holding a
// pointer to doubles at byte 8, {[0]:Pointer, [0,8]:Pointer,
// [0,8,0]:Float@double}.
//
// In memory (offsets after the first), -1 means "at every offset": an
// array of the type (memory of doubles: [0,-1]:Float@double). A fact at an
// offset covers the type's bytes from there (Concrete.Size); integers are
// recorded byte by byte.
//
// Paths are bounded (MaxDepth offsets, each at most MaxOffset) so that the
// fixed point over recursive structures (a list node pointing to the next)
// and pointer increments in loops terminates; what falls outside is not
// known.
type Tree struct {
	m map[key]Concrete
	// ver counts the changes of a tree Insert, Join, put and the
	// analysis's joins made (see Analysis.stale).
	ver uint64
	// shallow: the tree grew past MaxFacts and the analysis dropped its
	// facts two or more pointers deep, and takes no more (joinFact).
	shallow bool
}

const (
	// MaxDepth is the longest path kept: the value and four levels of
	// pointed-to memory.
	MaxDepth = 5
	// MaxOffset is the largest byte offset kept.
	MaxOffset = 1024
	// MaxFacts bounds a value's tree in the analysis: past it, the facts
	// two or more pointers deep are dropped (not known). An interpreter's
	// state (Lua's lua_State: a pointer to structs of pointers to
	// structs, each of hundreds of bytes) otherwise holds millions of
	// facts per value: 16 GB for Lua's VM.
	MaxFacts = 8192
)

// NewTree returns an empty tree.
func NewTree() *Tree { return &Tree{m: map[key]Concrete{}} }

// sizedTree returns an empty tree with room for n facts: the trees an
// operation derives from another get about as many facts, and a map grown
// fact by fact rehashes on the way.
func sizedTree(n int) *Tree { return &Tree{m: make(map[key]Concrete, n)} }

// Of returns the tree holding c at path.
func Of(c Concrete, path ...int64) *Tree {
	t := NewTree()
	t.Insert(c, path...)
	return t
}

// key is a path packed into an integer: its length in the low lenBits
// bits, then each offset plus one in offBits bits, first offset lowest.
// Every path a tree holds is within the bounds (keep, put), so packing is
// exact; a path outside them packs to noKey, which no tree holds.
type key uint64

const (
	lenBits = 3  // a length up to MaxDepth
	offBits = 11 // an offset plus one: 0 for -1, up to MaxOffset+1
	offMask = 1<<offBits - 1
	// noKey is the key of every path outside the bounds: a length no
	// path has.
	noKey = key(1<<lenBits - 1)
)

func encode(path []int64) key {
	if len(path) == 0 || len(path) > MaxDepth {
		return noKey
	}
	k := key(len(path))
	for i, o := range path {
		if o < -1 || o > MaxOffset {
			return noKey
		}
		k |= key(o+1) << (lenBits + offBits*i)
	}
	return k
}

// len is the length of k's path.
func (k key) len() int { return int(k & (1<<lenBits - 1)) }

// first is the first offset of k's path.
func (k key) first() int64 { return int64(k>>lenBits&offMask) - 1 }

// appendPath appends k's offsets to buf (callers pass a stack array's
// slice, so that decoding allocates nothing).
func (k key) appendPath(buf []int64) []int64 {
	for i := 0; i < k.len(); i++ {
		buf = append(buf, int64(k>>(lenBits+offBits*i)&offMask)-1)
	}
	return buf
}

func decode(k key) []int64 { return k.appendPath(make([]int64, 0, k.len())) }

// Entry is one fact of a tree.
type Entry struct {
	Path []int64
	Type Concrete
}

// Entries lists the facts in a stable order (shorter paths first, then by
// offsets).
func (t *Tree) Entries() []Entry {
	if t == nil {
		return nil
	}
	out := make([]Entry, 0, len(t.m))
	for k, c := range t.m {
		out = append(out, Entry{decode(k), c})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Path, out[j].Path
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return false
	})
	return out
}

// Len is the number of facts.
func (t *Tree) Len() int {
	if t == nil {
		return 0
	}
	return len(t.m)
}

// String prints the tree as Enzyme does, {[0]:Pointer, [0,0]:Float@double},
// runs of integer bytes shortened to [0,8..15]:Integer.
func (t *Tree) String() string {
	var parts []string
	es := t.Entries()
	for i := 0; i < len(es); i++ {
		e := es[i]
		idx := make([]string, len(e.Path))
		for k, o := range e.Path {
			idx[k] = fmt.Sprint(o)
		}
		j := i
		for e.Type == Integer && j+1 < len(es) && es[j+1].Type == Integer && consecutive(es[j].Path, es[j+1].Path) {
			j++
		}
		if j > i {
			idx[len(idx)-1] += fmt.Sprintf("..%d", es[j].Path[len(e.Path)-1])
			i = j
		}
		parts = append(parts, "["+strings.Join(idx, ",")+"]:"+e.Type.String())
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// consecutive reports paths equal but for a last offset one greater.
func consecutive(a, b []int64) bool {
	if len(a) != len(b) || a[len(a)-1] < 0 || b[len(b)-1] != a[len(a)-1]+1 {
		return false
	}
	for k := 0; k < len(a)-1; k++ {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// Clone returns a copy of t.
func (t *Tree) Clone() *Tree {
	c := sizedTree(t.Len())
	if t != nil {
		for k, v := range t.m {
			c.m[k] = v
		}
	}
	return c
}

// Equal reports whether two trees hold the same facts.
func (t *Tree) Equal(u *Tree) bool {
	if t.Len() != u.Len() {
		return false
	}
	for k, v := range t.m {
		if u.m[k] != v {
			return false
		}
	}
	return true
}

// keep reports whether a path is within the bounds: not empty, at most
// MaxDepth long, the value offset not negative, memory offsets -1 or
// 0..MaxOffset.
func keep(path []int64) bool {
	if len(path) == 0 || len(path) > MaxDepth || path[0] < 0 || path[0] > MaxOffset {
		return false
	}
	for _, o := range path[1:] {
		if o < -1 || o > MaxOffset {
			return false
		}
	}
	return true
}

// Insert joins c into the fact at path, reporting whether the tree
// changed. Unknown and paths out of bounds change nothing.
func (t *Tree) Insert(c Concrete, path ...int64) bool {
	if c == Unknown || !keep(path) {
		return false
	}
	k := encode(path)
	old := t.m[k]
	n := old.Join(c)
	if n == old {
		return false
	}
	t.m[k] = n
	t.ver++
	return true
}

// Join joins every fact of u into t, reporting whether t changed.
func (t *Tree) Join(u *Tree) bool {
	if u == nil {
		return false
	}
	changed := false
	for k, c := range u.m {
		old := t.m[k]
		if n := old.Join(c); n != old {
			t.m[k] = n
			changed = true
		}
	}
	if changed {
		t.ver++
	}
	return changed
}

// At is what the exact path holds, joining the facts of every path that
// matches it where a -1 in the tree matches any memory offset (a -1 in
// path matches only -1).
func (t *Tree) At(path ...int64) Concrete {
	if t == nil {
		return Unknown
	}
	c := Unknown
	if len(path) <= 2 {
		// Fast paths: the exact key and its -1 variant.
		c = c.Join(t.m[encode(path)])
		if len(path) == 2 && path[1] != -1 {
			c = c.Join(t.m[encode([]int64{path[0], -1})])
		}
		return c
	}
	var buf [MaxDepth]int64
	for k, v := range t.m {
		if k.len() != len(path) || k.first() != path[0] {
			continue
		}
		p := k.appendPath(buf[:0])
		match := true
		for i := 1; i < len(p); i++ {
			if p[i] != path[i] && p[i] != -1 {
				match = false
				break
			}
		}
		if match {
			c = c.Join(v)
		}
	}
	return c
}

// Data is the tree of the memory that the pointer at byte off of the value
// points to: its paths without their first offset, the memory offsets
// becoming the new first level.
func (t *Tree) Data(off int64) *Tree {
	out := sizedTree(t.Len())
	if t == nil {
		return out
	}
	var buf [MaxDepth]int64
	for k, c := range t.m {
		if k.len() >= 2 && k.first() == off {
			out.put(k.appendPath(buf[:0])[1:], c)
		}
	}
	return out
}

// put joins c at a path that may start with -1 (a memory tree's first
// level), which Insert's bounds refuse for values.
func (t *Tree) put(path []int64, c Concrete) bool {
	if c == Unknown || len(path) == 0 || len(path) > MaxDepth {
		return false
	}
	for _, o := range path {
		if o < -1 || o > MaxOffset {
			return false
		}
	}
	k := encode(path)
	old := t.m[k]
	n := old.Join(c)
	if n == old {
		return false
	}
	t.m[k] = n
	t.ver++
	return true
}

// Under is the tree of a value holding, at byte off, a pointer to memory
// described by mem (Data's inverse); the pointer itself is not asserted.
func (mem *Tree) Under(off int64) *Tree {
	out := sizedTree(mem.Len())
	if mem == nil {
		return out
	}
	var buf [MaxDepth + 1]int64
	buf[0] = off
	for k, c := range mem.m {
		out.put(k.appendPath(buf[:1]), c)
	}
	return out
}

// ShiftMemory moves a memory tree (first offsets in memory) by delta
// bytes, as seen from a pointer delta bytes before (a getelementptr's
// source seen from its result: delta is minus the offset). Offsets that
// become negative are dropped; -1 stays.
func (mem *Tree) ShiftMemory(delta int64) *Tree {
	out := sizedTree(mem.Len())
	if mem == nil {
		return out
	}
	var buf [MaxDepth]int64
	for k, c := range mem.m {
		p := k.appendPath(buf[:0])
		if p[0] != -1 {
			p[0] += delta
			if p[0] < 0 {
				continue
			}
		}
		out.put(p, c)
	}
	return out
}

// Repeating is the part of a memory tree that holds at every offset (its
// -1 facts).
func (mem *Tree) Repeating() *Tree {
	out := NewTree()
	if mem == nil {
		return out
	}
	for k, c := range mem.m {
		if k.first() == -1 {
			out.m[k] = c
		}
	}
	return out
}

// Window is what a read of n bytes at byte lo of memory mem sees, as a
// value tree (offsets from 0): the facts that start and end inside the
// window, and those holding at every offset repeated over it. A float or
// pointer only partly inside is left out (the value holds part of it:
// nothing a single type describes).
func (mem *Tree) Window(lo, n int64) *Tree {
	out := NewTree()
	if mem == nil || n <= 0 {
		return out
	}
	var buf [MaxDepth]int64
	for k, c := range mem.m {
		p := k.appendPath(buf[:0])
		if p[0] == -1 {
			z := c.Size()
			for o := int64(0); o+z <= n && o <= MaxOffset; o += z {
				p[0] = o
				out.put(p, c)
			}
			continue
		}
		if p[0] >= lo && p[0]+c.Size() <= lo+n {
			p[0] -= lo
			out.put(p, c)
		}
	}
	return out
}

// Place is Window's inverse: the memory tree of a value tree v written at
// byte lo (facts of v outside [0, n) are dropped).
func (v *Tree) Place(lo, n int64) *Tree {
	out := NewTree()
	if v == nil {
		return out
	}
	var buf [MaxDepth]int64
	for k, c := range v.m {
		p := k.appendPath(buf[:0])
		if p[0] < 0 || p[0]+c.Size() > n {
			continue
		}
		p[0] += lo
		out.put(p, c)
	}
	return out
}

// Truncate keeps the facts of a value tree that lie within its first n
// bytes.
func (v *Tree) Truncate(n int64) *Tree { return v.Window(0, n).Place(0, n) }

// Bytes is what each of the n bytes of a value tree holds at the value
// level: the fact starting there, or for the other bytes of a float or
// pointer, the same fact (each byte of a double is Float@double). Bytes
// covered by two facts hold Anything.
func (v *Tree) Bytes(n int64) []Concrete {
	out := make([]Concrete, n)
	if v == nil {
		return out
	}
	for k, c := range v.m {
		if k.len() != 1 {
			continue
		}
		for b := k.first(); b < k.first()+c.Size() && b < n; b++ {
			if b < 0 {
				continue
			}
			out[b] = out[b].Join(c)
		}
	}
	return out
}

// ScalarAt is the single type that bytes [off, off+size) of a value tree
// hold: a float or pointer starting at off and covering exactly size
// bytes, Integer when every byte is an integer, Unknown when nothing is
// known, Anything when the bytes mix types or a fact overlaps the edges.
func (v *Tree) ScalarAt(off, size int64) Concrete {
	if v == nil {
		return Unknown
	}
	start := v.m[encode([]int64{off})]
	bytes := v.Bytes(off + size)[off:]
	if start.IsFloat() || start == Pointer {
		if start.Size() != size {
			return Anything
		}
		for _, b := range bytes {
			if b != start {
				return Anything
			}
		}
		// Nothing else may start inside the span.
		for o := off + 1; o < off+size; o++ {
			if c := v.m[encode([]int64{o})]; c != Unknown {
				return Anything
			}
		}
		// And nothing from before may reach into it.
		for k, c := range v.m {
			if k.len() == 1 && k.first() < off && k.first()+c.Size() > off {
				return Anything
			}
		}
		return start
	}
	out := Unknown
	for _, b := range bytes {
		switch b {
		case Unknown:
		case Integer:
			out = Integer
		default:
			return Anything
		}
	}
	return out
}

// The fused forms below give the trees their compositions give, without
// the intermediate trees (the rules run them on every visit).

// shiftedPointee is t.Data(0).ShiftMemory(delta).Under(0): the value tree
// of a pointer delta bytes before the one t describes (at byte 0).
func (t *Tree) shiftedPointee(delta int64) *Tree {
	return treeOf(t.appendShiftedPointee(nil, delta))
}

// repeatingPointee is t.Data(0).Repeating().Under(0): what the memory
// the pointer at byte 0 points to holds at every offset.
func (t *Tree) repeatingPointee() *Tree {
	out := NewTree()
	if t == nil {
		return out
	}
	for k, c := range t.m {
		if k.len() >= 2 && k.first() == 0 && k>>(lenBits+offBits)&offMask == 0 {
			out.m[k] = c
		}
	}
	return out
}

// pointeeWindow is t.Data(0).Window(0, n): what a read of n bytes through
// the pointer at byte 0 sees.
func (t *Tree) pointeeWindow(n int64) *Tree { return treeOf(t.appendPointeeWindow(nil, n)) }

// placedUnder is v.Place(0, n).Under(0): the value tree of a pointer to
// memory where value v is written (n bytes).
func (v *Tree) placedUnder(n int64) *Tree { return treeOf(v.appendPlacedUnder(nil, n)) }
