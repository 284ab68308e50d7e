package ad

import "github.com/gozyme/gozyme/ad/cacheplan"

// Shared records: sibling loops that run the same iterations keep their
// iteration records in one buffer. The second loop to cache a value adds
// its fields to the first one's record type, and reads and writes them at
// its own iteration index (its own counter), as it would in a buffer of
// its own; its growth check grows the shared buffer (the same slot and
// capacity) against that index. This is sound whatever the loops run:
// each loop writes and reads only its own fields, at indices its own
// growth check covered, and realloc keeps what either wrote. Which loops
// share is a matter of memory only: a shared buffer holds as many records
// as the loop that ran more iterations, each as large as both loops'
// fields together, so only siblings (the same parent loop) with the same
// trip count (the same start, bound, step and exit test) share, whose
// counters advance alike where neither is skipped. The second loop is the
// second in the order the reverse sweep first caches values in them. What
// sharing saves is one buffer pointer kept live through the nest around the
// loops (GMM's per-(point, component) loops xc = x - mu and sqnorm(qx)
// reused registers the second pointer spilled, before the rule below
// gave them their own arrays: 1-2% more instructions at d = 2 and 10, the
// same time) and one buffer to retain and free.
//
// A record of one field is not joined: alone it is a plain array, whose
// loop stores and loads consecutive iterations' values contiguously (as
// vectors, in the vectorized versions of long loops, loopversion.go) and
// touches no bytes but its own; shared, each loop's pass strides over the
// other loops' fields too. An ODE's four Runge-Kutta stage loops (n =
// 1000, one double each) sharing one record of four ran 20% more
// instructions and missed the first-level cache twice as often. The owner
// must hold two fields or more when the second loop first caches (the
// reverse sweep adds a loop's fields while it generates that loop's
// reverse, so an owner's fields are mostly all there by then).

// recordOwner returns the loop cache whose record lc's fields join: a
// sibling loop of lc's with the same trip count whose record exists, has
// two fields or more and is not itself shared from another; nil where lc
// makes its own.
func (r *reverseGen) recordOwner(lc *loopCache) *loopCache {
	l := lc.loop
	if l == nil || r.loops[l] != lc {
		return nil // a hoisted group's cache (hoist.go)
	}
	tc, ok := r.analyzeTripCount(l)
	if !ok {
		return nil
	}
	for _, o := range r.cfg.Loops {
		oc := r.loops[o]
		if o == l || o.Parent != l.Parent || oc.rec == nil || oc.owner != nil || len(oc.rec.Fields) < 2 {
			continue
		}
		if otc, ok := r.analyzeTripCount(o); ok && cacheplan.SameCount(tc, otc) {
			return oc
		}
	}
	return nil
}
