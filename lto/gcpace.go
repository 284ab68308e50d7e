package lto

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// A link's Go heap is small for the programs most clients build (a few
// MiB live, tens at the peak), and at Go's default GOGC=100 the collector
// runs a dozen times over it: a few percent of the link's CPU
// (bench/results/history.md). While the live heap is small, the link lets
// it grow to five times its live size between collections; once it is
// past smallHeap (a huge module), the default pacing returns, so that the
// peak memory of big links stays what it was. GOGC set by the user wins.

// smallHeap is the live heap under which the link collects less often.
const smallHeap = 64 << 20

// lazyGCPercent is the pacing while the live heap is small.
const lazyGCPercent = 400

// paceGC sets the link's GC pacing and returns what restores the previous
// one (Link runs in-process in gozyme-cc and in tests).
func paceGC() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(lazyGCPercent)
	done := make(chan struct{})
	watchHeap(done)
	return func() {
		close(done)
		debug.SetGCPercent(old)
	}
}

// watchHeap checks the live heap after each collection until done is
// closed, and returns the pacing to the default once it passes smallHeap.
func watchHeap(done chan struct{}) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	type sentinel struct{ _ [16]byte }
	var check func(*sentinel)
	check = func(*sentinel) {
		select {
		case <-done:
			return
		default:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > smallHeap {
			debug.SetGCPercent(100)
			return
		}
		runtime.SetFinalizer(&sentinel{}, check)
	}
	runtime.SetFinalizer(&sentinel{}, check)
}
