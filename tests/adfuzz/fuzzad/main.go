// Command fuzzad is the developer front end of package adfuzz: it runs the
// random differential tests of gozyme's AD engine (`make fuzz-ad`) or
// Enzyme's integration suite (`make enzyme-suite`) and prints a summary.
//
//	fuzzad -n 1000 -levels 0,1,2,3 -j 2       seeds 1..1000 at every level
//	fuzzad -seeds 17,42 -levels 2 -keep-temps  rerun two seeds, keep gozyme's IR of failures
//	fuzzad -print 42                           print the program of seed 42
//	fuzzad -suite DIR -levels 0,2,3            Enzyme's integration suite
//	fuzzad -suite DIR -levels 2 -run-flags     the same, each program with its RUN line's flags
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gozyme/gozyme/tests/adfuzz"
)

func main() {
	var (
		n         = flag.Int("n", 100, "number of seeds")
		first     = flag.Uint64("seed", 1, "first seed")
		seedList  = flag.String("seeds", "", "comma-separated seeds to run instead of -seed/-n")
		levels    = flag.String("levels", "0,1,2,3", "optimization levels (comma- or space-separated)")
		jobs      = flag.Int("j", runtime.GOMAXPROCS(0), "programs built and run in parallel")
		out       = flag.String("out", "build/fuzz-ad-failures", "folder for failing programs (<seed>-O<level>/)")
		bin       = flag.String("bin", "bin", "folder holding gozyme-cc and gozyme-c++")
		timeout   = flag.Duration("timeout", 30*time.Second, "limit per program run")
		btimeout  = flag.Duration("build-timeout", 5*time.Minute, "limit per build")
		sanity    = flag.Bool("sanity", false, "build the reference with -fsanitize=undefined,address and run its primal part")
		keepTemps = flag.Bool("keep-temps", false, "keep gozyme's intermediate IR of failing builds (in <out>/<seed>-O<level>/temps)")
		knobs     = flag.String("knobs", "", "knobs every program gets: "+knobList())
		only      = flag.Bool("only", false, "use exactly -knobs (plus libm)")
		modes     = flag.String("modes", "", "modes every program uses (reverse,forward,split,batch); default: chosen by seed")
		noCXX     = flag.Bool("no-cxx", false, "generate C only")
		print     = flag.Uint64("print", 0, "print the program of this seed and exit")
		suite     = flag.String("suite", "", "run Enzyme's integration suite in this folder instead of generated programs")
		runFlags  = flag.Bool("run-flags", false, "with -suite: compile each program with the flags of its own RUN line at the level")
		quiet     = flag.Bool("q", false, "print only failures and the summary")
	)
	flag.Parse()
	gen := adfuzz.Options{Only: *only, NoCXX: *noCXX}
	var err error
	if gen.Knobs, err = adfuzz.ParseKnobs(*knobs); err != nil {
		fatal(err)
	}
	if gen.Modes, err = adfuzz.ParseModes(*modes); err != nil {
		fatal(err)
	}
	if *print != 0 {
		fmt.Print(adfuzz.Generate(*print, gen).Source)
		return
	}
	lv := strings.FieldsFunc(*levels, func(r rune) bool { return r == ',' || r == ' ' })
	binDir, err := filepath.Abs(*bin)
	if err != nil {
		fatal(err)
	}
	if *jobs < 1 {
		*jobs = 1
	}
	if *suite != "" {
		dir, err := filepath.Abs(*suite) // the programs compile in scratch folders
		if err != nil {
			fatal(err)
		}
		os.Exit(runSuite(dir, binDir, lv, *jobs, *runFlags, *timeout, *btimeout))
	}
	var seeds []uint64
	if *seedList != "" {
		for _, f := range strings.Split(*seedList, ",") {
			s, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
			if err != nil {
				fatal(fmt.Errorf("-seeds: %v", err))
			}
			seeds = append(seeds, s)
		}
	} else {
		for i := 0; i < *n; i++ {
			seeds = append(seeds, *first+uint64(i))
		}
	}
	work, err := os.MkdirTemp("", "fuzzad-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(work)
	cfg := &adfuzz.Config{Bin: binDir, Levels: lv, Work: work, RunTimeout: *timeout, BuildTimeout: *btimeout,
		Sanity: *sanity, KeepTemps: *keepTemps, Gen: gen}
	sum := adfuzz.NewSummary(lv)
	var mu sync.Mutex
	var failures []adfuzz.Outcome
	report := func(outs []adfuzz.Outcome) {
		mu.Lock()
		defer mu.Unlock()
		for _, o := range outs {
			sum.Add(o.Class, o.Level)
			if o.Class == adfuzz.Pass {
				continue
			}
			failures = append(failures, o)
			dir := filepath.Join(*out, fmt.Sprintf("%d-O%s", o.Seed, o.Level))
			if err := adfuzz.SaveFailure(o, dir); err != nil {
				fmt.Fprintln(os.Stderr, "fuzzad:", err)
			}
			fmt.Printf("seed %d -O%s: %s: %s [%s]\n", o.Seed, o.Level, o.Class, o.Detail, o.Program.Knobs)
		}
		if !*quiet && len(outs) > 0 {
			var cls []string
			for _, o := range outs {
				cls = append(cls, "O"+o.Level+" "+o.Class.String())
			}
			fmt.Printf("seed %d done: %s\n", outs[0].Seed, strings.Join(cls, ", "))
		}
	}
	ch := make(chan uint64)
	var wg sync.WaitGroup
	ctx := context.Background()
	for i := 0; i < *jobs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range ch {
				outs := cfg.RunSeed(ctx, s)
				report(outs)
				os.RemoveAll(filepath.Join(work, fmt.Sprint(s)))
			}
		}()
	}
	for _, s := range seeds {
		ch <- s
	}
	close(ch)
	wg.Wait()
	sort.Slice(failures, func(i, j int) bool {
		if failures[i].Seed != failures[j].Seed {
			return failures[i].Seed < failures[j].Seed
		}
		return failures[i].Level < failures[j].Level
	})
	fmt.Printf("\nfuzz-ad: %d seeds at -O%s; failing programs in %s\n", len(seeds), strings.Join(lv, " -O"), *out)
	names := make([]string, 0)
	for _, c := range adfuzz.AllClasses() {
		names = append(names, c.String())
	}
	sum.Write(os.Stdout, names)
	if sum.Failures() > 0 {
		os.Exit(1)
	}
}

func knobList() string {
	var s []string
	for _, k := range adfuzz.AllKnobs() {
		s = append(s, k.String())
	}
	return strings.Join(s, ",")
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "fuzzad:", err)
	os.Exit(2)
}
