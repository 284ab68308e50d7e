package typeanalysis

import (
	"strings"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// call relates a call's arguments and result to the callee: for an
// analyzed body, the callee's summary (its parameters and return as its
// own body types them) goes up into the arguments and result, and in the
// second phase the arguments and result go down into the callee's
// parameters and return tree (see freezeSummaries); for library
// functions and intrinsics, what they are known to do; for anything else,
// only the IR types (already certain).
func (a *Analysis) call(c value.Value, callee value.Value, args []value.Value) {
	if g := a.callee(callee); g != nil {
		a.returnedArgCall(c, g, args) // retargs.go
		a.returnedLoadCall(c, g, args)
		// A callee called from one place only has one context: what its
		// parameters and return learned from that caller goes back up
		// whole (as if inlined), not only the frozen summary.
		single := len(a.calls[g]) == 1
		for i, p := range g.Params {
			if i >= len(args) {
				break
			}
			if a.context {
				a.flowTree(p, args[i], flowSame)
				if single {
					a.flowTree(args[i], p, flowDefinite)
				} else {
					a.add(args[i], a.paramSum[p])
				}
			} else {
				a.flowTree(args[i], p, flowSame)
			}
		}
		if !types.Equal(c.Type(), types.Void) {
			if a.context {
				if single {
					a.addTree(c, a.rets[g], true)
				} else {
					a.add(c, a.retSum[g])
				}
				a.addRet(g, a.get(c))
			} else {
				a.add(c, a.rets[g])
			}
		}
		return
	}
	f, ok := irutil.StripCasts(callee).(*ir.Func)
	if !ok {
		return
	}
	a.library(c, f.Name(), args)
}

// definiteTree is t without its conflicts (Anything): what a
// single-context callee sends back up adds what its body learned, never a
// conflict the caller's own facts met there (a union's bytes, hashed as
// integers). Calls join it with addTree(..., true), which leaves them out.
func definiteTree(t *Tree) *Tree {
	out := NewTree()
	for k, c := range t.m {
		if c != Anything {
			out.m[k] = c
		}
	}
	return out
}

// library applies what a function without a body (or an intrinsic) is
// known to do with its arguments.
func (a *Analysis) library(c value.Value, name string, args []value.Value) {
	arg := func(i int) value.Value {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	ints := func(idx ...int) {
		for _, i := range idx {
			if v := arg(i); v != nil {
				a.add(v, integers(v.Type()))
			}
		}
	}
	intResult := func() {
		if _, ok := c.Type().(*types.IntType); ok {
			a.add(c, integers(c.Type()))
		}
	}
	switch {
	case isMemTransfer(name):
		if len(args) >= 3 {
			a.memTransfer(args[0], args[1], args[2])
			ints(2)
		}
		return
	case name == "memset" || strings.HasPrefix(name, "llvm.memset."):
		ints(2)
		return
	case strings.HasPrefix(name, "llvm.masked.load."):
		if len(args) >= 4 {
			a.access(c, args[0], c.Type())
			a.same(c, args[3])
		}
		return
	case strings.HasPrefix(name, "llvm.masked.store."):
		if len(args) >= 2 {
			a.access(args[0], args[1], args[0].Type())
		}
		return
	case strings.HasPrefix(name, "llvm.powi."):
		ints(1)
		return
	}
	if base := intrinsicBase(name); base != "" {
		switch base {
		case "abs", "smax", "smin", "umax", "umin", "ctpop", "ctlz", "cttz", "bitreverse", "fshl", "fshr",
			"sadd.with.overflow", "uadd.with.overflow", "ssub.with.overflow", "usub.with.overflow",
			"smul.with.overflow", "umul.with.overflow", "sadd.sat", "uadd.sat", "ssub.sat", "usub.sat":
			for i := range args {
				if _, ok := args[i].Type().(*types.IntType); ok {
					ints(i)
				}
			}
			intResult()
		}
		return
	}
	switch name {
	case "malloc", "_Znwm", "_Znam", "valloc", "pvalloc", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t":
		ints(0)
	case "calloc":
		ints(0, 1)
	case "aligned_alloc", "memalign", "_ZnwmSt11align_val_t", "_ZnamSt11align_val_t":
		ints(0, 1)
	case "realloc":
		ints(1)
		if len(args) >= 1 {
			a.same(c, args[0])
		}
	case "posix_memalign":
		ints(1, 2)
		if p := arg(0); p != nil {
			a.add(p, Of(Pointer, 0, 0))
		}
	case "ldexp", "ldexpf", "scalbn", "scalbnf", "scalbln", "scalblnf":
		ints(1)
	case "frexp", "frexpf":
		if p := arg(1); p != nil {
			a.add(p, integers(types.I32).Under(0))
		}
	case "modf", "modff":
		if p, x := arg(1), arg(0); p != nil && x != nil {
			a.add(p, certain(x.Type()).Under(0))
		}
	case "sincos", "sincosf":
		if x := arg(0); x != nil {
			for _, i := range []int{1, 2} {
				if p := arg(i); p != nil {
					a.add(p, certain(x.Type()).Under(0))
				}
			}
		}
	case "lround", "lroundf", "llround", "llroundf", "lrint", "lrintf", "llrint", "llrintf", "ilogb", "ilogbf":
		intResult()
	case "abs", "labs", "llabs":
		ints(0)
		intResult()
	}
}

// memTransfer: memcpy and memmove make the n bytes at dst hold what the
// bytes at src hold, both ways. For a constant n, the facts within the
// first n bytes (and those holding at every offset); for a variable n,
// every fact (the copy is of whole elements: arrays of the same thing).
func (a *Analysis) memTransfer(dst, src, n value.Value) {
	sm, dm := a.get(src).Data(0), a.get(dst).Data(0)
	if k, ok := intConst(n); ok {
		sm, dm = sm.prefix(k), dm.prefix(k)
	}
	a.add(dst, sm.Under(0))
	a.add(src, dm.Under(0))
}

// prefix is the part of a memory tree within its first n bytes, with the
// facts holding at every offset where n is a whole number of them (a
// copy of whole elements); a copy of part of one (4 bytes of an array of
// doubles) carries those only where they fit in the n bytes, and a
// 4-byte int the bytes come from holds no double.
func (mem *Tree) prefix(n int64) *Tree {
	out := NewTree()
	var buf [MaxDepth]int64
	for k, c := range mem.m {
		f, z := k.first(), c.Size()
		switch {
		case f == -1 && n%z == 0:
			out.m[k] = c
		case f == -1:
			p := k.appendPath(buf[:0])
			for o := int64(0); o+z <= n && o <= MaxOffset; o += z {
				p[0] = o
				out.put(p, c)
			}
		case f+z <= n:
			out.m[k] = c
		}
	}
	return out
}

func isMemTransfer(name string) bool {
	return name == "memcpy" || name == "memmove" || name == "__memcpy_chk" || name == "__memmove_chk" ||
		strings.HasPrefix(name, "llvm.memcpy.") || strings.HasPrefix(name, "llvm.memmove.")
}

// intrinsicBase is an LLVM intrinsic's name without "llvm." and its type
// suffixes (llvm.smax.i64: smax), "" for other functions.
func intrinsicBase(name string) string {
	if !strings.HasPrefix(name, "llvm.") {
		return ""
	}
	parts := strings.Split(strings.TrimPrefix(name, "llvm."), ".")
	var keep []string
	for _, p := range parts {
		if isTypeSuffix(p) {
			break
		}
		keep = append(keep, p)
	}
	return strings.Join(keep, ".")
}

func isTypeSuffix(s string) bool {
	if len(s) < 2 {
		return false
	}
	switch s[0] {
	case 'i', 'f', 'v', 'p':
		for _, r := range s[1:] {
			if (r < '0' || r > '9') && r != 'i' && r != 'f' && r != 'p' {
				return false
			}
		}
		return s[1] >= '0' && s[1] <= '9'
	}
	return false
}
