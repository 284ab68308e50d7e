package ad

import (
	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
)

// Interprocedural activity: which pointer arguments of a call need a
// shadow because the callee writes derivatives (or shadow pointers) through
// them. A helper that scales a local array by an active factor, fills a
// struct from active inputs, or constructs a C++ object in its caller's
// memory (sret) writes derivatives into memory its caller owns; the caller
// must give that memory a shadow, or the derivative is lost. A pointer the
// callee only reads (a constant parameter array passed next to an active
// one) needs none.
//
// The summary of a callee for the activities of a call is found by
// analyzing the callee with those activities: a parameter without a shadow
// whose shadow the callee's analysis asks for (activity.Unmet) is one it
// writes through. Summaries of recursive functions are fixed points: a
// call of a function still being summarized reads the previous round's
// summary (none written at first), and rounds repeat until no summary
// changes; each round only adds writes, so the rounds end.

// summary is what a call of a function with given activities does with
// derivatives, as its caller needs to know.
type summary struct {
	// needs lists the argument positions the callee writes derivatives
	// through (or returns pointers into) without a shadow from the call.
	needs []bool
	// hard marks the needs without which the callee's derivative cannot
	// be built (activity.Unmet).
	hard []bool
	// retShadow reports a returned pointer into memory holding
	// derivatives: the call's result needs a shadow.
	retShadow bool
}

// summaries memoizes callSummary per callee and activities.
type summaries struct {
	done     map[string]*summary // final summaries
	current  map[string]*summary // this round's
	previous map[string]*summary // the last round's, read for calls of functions being summarized
	inFlight map[string]bool
	depth    int
	// recursed records that a summary being computed was read this round.
	recursed bool
}

func newSummaries() *summaries {
	return &summaries{done: map[string]*summary{}, current: map[string]*summary{}, inFlight: map[string]bool{}}
}

// callSummary reports, for each argument position of a call of f with
// activities acts, whether f writes derivatives through that argument (or,
// with retShadow, returns a pointer into its memory whose shadow the
// caller needs) while acts gives it no shadow: the caller must give it one;
// and whether f returns a pointer to memory that holds derivatives.
func (d *differ) callSummary(f *ir.Func, acts []activity.Activity, retShadow bool) *summary {
	s := d.sums
	key := derivativeName("", f, acts)
	if retShadow {
		key += ".rs"
	}
	if r, ok := s.done[key]; ok {
		return r
	}
	if r, ok := s.current[key]; ok {
		return r
	}
	if s.inFlight[key] {
		s.recursed = true
		if r, ok := s.previous[key]; ok {
			return r
		}
		return &summary{needs: make([]bool, len(acts)), hard: make([]bool, len(acts))}
	}
	outermost := s.depth == 0
	for {
		s.depth++
		s.inFlight[key] = true
		r := d.summarize(f, acts, retShadow)
		delete(s.inFlight, key)
		s.depth--
		s.current[key] = r
		if !outermost {
			return r
		}
		if !s.recursed || sameSummaries(s.current, s.previous) {
			for k, v := range s.current {
				s.done[k] = v
			}
			s.current, s.previous, s.recursed = map[string]*summary{}, nil, false
			return r
		}
		s.previous, s.current, s.recursed = s.current, map[string]*summary{}, false
	}
}

// summarize analyzes f for acts and lists the parameters it asks shadows
// for that acts does not give.
func (d *differ) summarize(f *ir.Func, acts []activity.Activity, retShadow bool) *summary {
	out := &summary{needs: make([]bool, len(acts)), hard: make([]bool, len(acts))}
	pf, err := d.prepared(f)
	if err != nil {
		// The callee cannot be differentiated: generating its derivative
		// reports why. Until then, assume it writes through everything.
		for i := range out.needs {
			out.needs[i], out.hard[i] = true, true
		}
		return out
	}
	a := d.analyzeActivity(pf, acts, false, retShadow)
	for _, u := range a.Unmet {
		if g, ok := u.Base.(*ir.Global); ok {
			d.noteGlobalUnmet(pf, a, u, g)
		}
		if g, ok := u.Base.(*ir.Global); ok && !g.Immutable && !u.Hard {
			// A write the caller never sees as its own (the callee may not
			// be differentiated at all when its result is inactive).
			d.noteLostGlobal(pf, u, g)
		}
		p, ok := u.Base.(*ir.Param)
		if !ok {
			continue
		}
		for i, q := range pf.Params {
			if q == p && i < len(out.needs) {
				out.needs[i] = true
				out.hard[i] = out.hard[i] || u.Hard
			}
		}
	}
	for _, b := range pf.Blocks {
		if r, ok := b.Term.(*ir.TermRet); ok && r.X != nil && holdsPointers(r.X.Type()) && a.HasShadow(r.X) {
			out.retShadow = true
		}
	}
	return out
}

func sameSummaries(a, b map[string]*summary) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		y, ok := b[k]
		if !ok || len(x.needs) != len(y.needs) || x.retShadow != y.retShadow {
			return false
		}
		for i := range x.needs {
			if x.needs[i] != y.needs[i] || x.hard[i] != y.hard[i] {
				return false
			}
		}
	}
	return true
}
