package lto

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// stageTimes accumulates the wall time of each link stage; GOZYME_TIMES=1
// prints them when gozyme-ld finishes (make bench reads them). Stages that
// run once per group (merge, optimize, differentiate, codegen) add up over
// the groups, which may run in parallel.
type stageTimes struct {
	mu    sync.Mutex
	d     map[string]time.Duration
	order []string
}

type timesKey struct{}

func withStageTimes(ctx context.Context) (context.Context, *stageTimes) {
	st := &stageTimes{d: map[string]time.Duration{}}
	return context.WithValue(ctx, timesKey{}, st), st
}

// timeStage runs f and records its duration under stage, when ctx carries
// a stageTimes.
func timeStage(ctx context.Context, stage string, f func() error) error {
	st, _ := ctx.Value(timesKey{}).(*stageTimes)
	if st == nil {
		return f()
	}
	start := time.Now()
	err := f()
	st.mu.Lock()
	if _, ok := st.d[stage]; !ok {
		st.order = append(st.order, stage)
	}
	st.d[stage] += time.Since(start)
	st.mu.Unlock()
	return err
}

// report prints one line per stage, in the order they first ran.
func (st *stageTimes) report(w io.Writer, total time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, s := range st.order {
		fmt.Fprintf(w, "gozyme-ld: time %s %.6f\n", s, st.d[s].Seconds())
	}
	fmt.Fprintf(w, "gozyme-ld: time total %.6f\n", total.Seconds())
}
