package ad

import (
	"errors"
	"fmt"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/ad/rules"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// GPU modules (CUDA device code, target nvptx64): the same engine, with the
// rules parallel execution needs (Enzyme, SC'21):
//   - a read shared by threads in the primal is an adjoint written by all
//     of them: shadow accumulation into memory other threads may touch is
//     an atomic add (gpuaccum.go); thread-private adjoints are plain;
//   - barriers (__syncthreads) are mirrored at the matching point of the
//     reverse sweep (gpubarrier.go);
//   - __shared__ arrays get __shared__ shadows (here);
//   - caches live in registers and local memory, never in memory
//     allocated per thread (gpucache.go);
//   - device math (libdevice's __nv_sin, ...) takes the host libm's
//     derivative rules, and derivative code calls libdevice, not libm
//     (package rules);
//   - what has no rule (warp shuffles of derivatives, dynamic parallelism,
//     cooperative groups) is an error naming the kernel and line
//     (gpucheck.go).

// Address spaces of the NVPTX target.
const (
	addrSpaceGlobal = 1
	addrSpaceShared = irfacts.AddrSpaceShared
	addrSpaceLocal  = 5
)

// sharedShadow returns (creating once per module) the __shared__ shadow of
// __shared__ variable g: derivatives, like the values, are shared by the
// threads of a block. Shared memory has no initial value; the forward
// sweep clears the shadow where the primal stores (clearSharedShadow), as
// a valid program writes shared memory before reading it.
func (d *differ) sharedShadow(g *ir.Global) *ir.Global {
	key := constShadowKey{g: g}
	if s, ok := d.constShadows[key]; ok {
		return s
	}
	s := ir.NewGlobalDef(g.Name()+".gozyme_shadow", constant.NewUndef(g.ContentType))
	s.AddrSpace = g.AddrSpace
	s.Typ = types.NewPointer(g.ContentType)
	s.Typ.AddrSpace = g.AddrSpace
	s.Linkage = enum.LinkageInternal
	s.Align = g.Align
	d.constShadows[key] = s
	d.m.Globals = append(d.m.Globals, s)
	return s
}

// sharedBase reports whether pointer p points into a __shared__ variable
// (through casts and getelementptrs only).
func sharedBase(p value.Value) bool {
	var bases []value.Value
	activity.PointerBases(p, map[value.Value]bool{}, &bases)
	for _, b := range bases {
		if g, ok := b.(*ir.Global); ok && irfacts.IsSharedGlobal(g) {
			return true
		}
	}
	if pt, ok := p.Type().(*types.PointerType); ok && pt.AddrSpace == addrSpaceShared {
		return true
	}
	return false
}

// clearSharedShadow emits, after a primal store of floating point into
// __shared__ memory, the store of zero into its shadow: the reverse sweep
// then accumulates into a cleared shadow. The primal store is race-free
// (the program is), and so is its mirror: every thread that reads the
// stored value does so after a barrier the storing thread passed after
// the store, and accumulates into the shadow only in its reverse sweep,
// after that barrier again.
func clearSharedShadow(st *ir.InstStore, shadowDst value.Value) []ir.Instruction {
	z := ir.NewStore(rules.ZeroOf(st.Src.Type()), shadowDst)
	z.Align = st.Align
	return []ir.Instruction{z}
}

// markConvergent makes generated function g convergent, as clang makes
// every CUDA device function: it may contain barriers, which the
// optimizer must not make control dependent on more values.
func markConvergent(g *ir.Func) {
	for _, a := range g.FuncAttrs {
		if a == ir.FuncAttribute(enum.FuncAttrConvergent) {
			return
		}
	}
	g.FuncAttrs = append(g.FuncAttrs, enum.FuncAttrConvergent)
}

// kernels returns the functions !nvvm.annotations marks as kernels.
func kernels(m *ir.Module) map[*ir.Func]bool {
	out := map[*ir.Func]bool{}
	for _, nm := range m.NamedMetadataDefs {
		if nm.Name != "nvvm.annotations" {
			continue
		}
		for _, n := range nm.Nodes {
			t, ok := n.(*metadata.Tuple)
			if !ok || len(t.Fields) < 2 {
				continue
			}
			kind, ok := t.Fields[1].(*metadata.String)
			if !ok || kind.Value != "kernel" {
				continue
			}
			var v interface{} = t.Fields[0]
			if mv, ok := v.(*metadata.Value); ok {
				v = mv.Value
			}
			if c, ok := v.(value.Value); ok {
				if f, ok := irutil.StripCasts(c).(*ir.Func); ok {
					out[f] = true
				}
			}
		}
	}
	return out
}

// inKernel names, in an error of a GPU module, the kernel (or device
// function) whose Enzyme call needed the derivative.
func (d *differ) inKernel(rt *root, err error) error {
	var e *Error
	if d.gpu && errors.As(err, &e) && e.Kernel == "" {
		e.Kernel = rt.caller.Name()
	}
	return err
}

// notef sends a remark to Options.Note.
func (d *differ) notef(format string, args ...interface{}) {
	if d.note != nil {
		d.note(fmt.Sprintf(format, args...))
	}
}

// dynamicShared reports extern __shared__ memory: a declaration (or an
// array of no elements) whose size the launch gives.
func dynamicShared(g *ir.Global) bool {
	if g.Init == nil {
		return true
	}
	at, ok := g.ContentType.(*types.ArrayType)
	return ok && at.Len == 0
}
