package ad

import (
	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// What a call of a defined function may write, for the reloads of
// remat.go: a helper the inliner left alone (a log-prior called once after
// the main loop) otherwise counts as writing all memory, and every load
// before it that the reverse sweep reads is cached.

// writeSummary is what a function may write, in terms of its parameters:
// the memory of the pointers it is given (params, by index), globals,
// memory reached through pointers it reads from memory (opaque), or
// anything (all). Its own allocas and allocations are not in it: they are
// new memory no caller's pointer reaches before the call.
type writeSummary struct {
	params  map[int]bool
	globals []value.Value
	opaque  bool
	all     bool
}

// writesOf returns f's summary, computed once. A function on a call cycle
// with itself, without a body, or with invokes writes all.
func (d *differ) writesOf(f *ir.Func) *writeSummary {
	if s, ok := d.writeSums[f]; ok {
		if s == nil {
			return &writeSummary{all: true} // recursion
		}
		return s
	}
	if d.writeSums == nil {
		d.writeSums = map[*ir.Func]*writeSummary{}
	}
	d.writeSums[f] = nil
	s := &writeSummary{params: map[int]bool{}}
	if len(f.Blocks) == 0 {
		s.all = true
	}
	params := map[value.Value]int{}
	for i, p := range f.Params {
		params[p] = i
	}
	// through adds what a write through pointer ptr of f touches.
	through := func(ptr value.Value) {
		objs, opaque, known := pointerObjects(ptr)
		s.opaque = s.opaque || opaque
		s.all = s.all || !known
		for _, o := range objs {
			if i, ok := params[o]; ok {
				s.params[i] = true
			} else if g, ok := o.(*ir.Global); ok {
				s.globals = append(s.globals, g)
			}
		}
	}
	for _, b := range f.Blocks {
		if _, ok := b.Term.(*ir.TermInvoke); ok {
			s.all = true
		}
		for _, inst := range b.Insts {
			if s.all {
				break
			}
			switch x := inst.(type) {
			case *ir.InstStore:
				through(x.Dst)
			case *ir.InstAtomicRMW:
				through(x.Dst)
			case *ir.InstCmpXchg:
				through(x.Ptr)
			case *ir.InstCall:
				d.callWrites(x, through, s)
			}
		}
	}
	if s.all {
		s = &writeSummary{all: true}
	}
	d.writeSums[f] = s
	return s
}

// callWrites adds to s what call c may write, each pointer it writes
// through given to through; the summary of a defined callee is mapped to
// c's arguments.
func (d *differ) callWrites(c *ir.InstCall, through func(value.Value), s *writeSummary) {
	switch {
	case irfacts.IsMemTransfer(c), irfacts.IsMemSet(c):
		through(c.Args[0])
		return
	case irfacts.IsMaskedStore(c):
		if len(c.Args) > 1 {
			through(c.Args[1])
		} else {
			s.all = true
		}
		return
	case isFree(c):
		through(c.Args[0])
		return
	case writesNoMemory(c):
		return
	}
	if blasWrites(c, through) {
		return
	}
	f, ok := irutil.StripCasts(c.Callee).(*ir.Func)
	if !ok {
		s.all = true
		return
	}
	sub := d.writesOf(f)
	if sub.all {
		s.all = true
		return
	}
	s.globals = append(s.globals, sub.globals...)
	for i, a := range c.Args {
		// Through a pointer the callee read from memory it may write any
		// argument's memory it stored there: opaque covers them all.
		if sub.params[i] || (sub.opaque && holdsPointers(irfacts.Unwrap(a).Type())) {
			through(a)
		}
	}
	s.opaque = s.opaque || sub.opaque
}
