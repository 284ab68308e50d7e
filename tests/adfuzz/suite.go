package adfuzz

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// SuiteConfig runs a folder of self-checking C and C++ programs (Enzyme's
// integration suite) through gozyme at several levels, as
// /work/shared/tools/run-c-tests.sh does with one compiler: each file is
// compiled alone, run, and passes when it exits 0.
type SuiteConfig struct {
	Dir      string   // the suite's root (also an include directory)
	Bin      string   // directory holding gozyme-cc and gozyme-c++
	Levels   []string // optimization levels
	Includes []string // more include directories (default: /usr/include/eigen3)
	Skip     string   // regexp over file text: files to skip (default: MPI, CUDA, -verify, XFAIL)
	// RunFlags compiles each program with the flags of its own RUN line at
	// the level (RunLineFlags) where it has one, instead of -std=c++17
	// (C++) and -fopenmp (OpenMP programs) alone.
	RunFlags     bool
	Jobs         int
	RunTimeout   time.Duration
	BuildTimeout time.Duration
}

// DefaultSuiteSkip skips what needs MPI or CUDA, clang -verify
// diagnostics tests, and expected failures. OpenMP programs are built with
// -fopenmp (ompRE).
const DefaultSuiteSkip = `mpi\.h|cuda|-verify|XFAIL`

// ompRE marks a program that uses OpenMP.
var ompRE = regexp.MustCompile(`omp\.h|#pragma omp`)

// SuiteResult holds the outcome of every file at every level.
type SuiteResult struct {
	Levels  []string
	Files   []string
	Skipped int
	Out     map[string]map[string]Outcome // file -> level -> outcome
	Logs    string                        // folder of the failing programs' logs
}

// suiteClassName names a class as the suite reports it.
func suiteClassName(c Class) string {
	switch c {
	case LinkError:
		return "compile/link error"
	case InternalError:
		return "internal error"
	case WrongDeriv:
		return "wrong result"
	}
	return c.String()
}

// Run builds and runs every file of the suite at every level, printing a
// line per failure as it comes.
func (c *SuiteConfig) Run(ctx context.Context, progress io.Writer) (*SuiteResult, error) {
	skip := c.Skip
	if skip == "" {
		skip = DefaultSuiteSkip
	}
	skipRE, err := regexp.Compile(skip)
	if err != nil {
		return nil, err
	}
	incs := c.Includes
	if incs == nil {
		incs = []string{"/usr/include/eigen3"}
	}
	logs, err := os.MkdirTemp("", "enzyme-suite-")
	if err != nil {
		return nil, err
	}
	res := &SuiteResult{Levels: c.Levels, Out: map[string]map[string]Outcome{}, Logs: logs}
	err = filepath.WalkDir(c.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".c", ".cpp", ".cc":
		default:
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if skipRE.Match(text) {
			res.Skipped++
			return nil
		}
		rel, _ := filepath.Rel(c.Dir, path)
		res.Files = append(res.Files, rel)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(res.Files)
	type job struct{ file, level string }
	jobs := make(chan job)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < max(c.Jobs, 1); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				o := c.runFile(ctx, j.file, j.level, incs, logs)
				mu.Lock()
				if res.Out[j.file] == nil {
					res.Out[j.file] = map[string]Outcome{}
				}
				res.Out[j.file][j.level] = o
				if o.Class != Pass && progress != nil {
					fmt.Fprintf(progress, "-O%s %s: %s: %s\n", j.level, j.file, suiteClassName(o.Class), o.Detail)
				}
				mu.Unlock()
			}
		}()
	}
	for _, f := range res.Files {
		for _, l := range c.Levels {
			jobs <- job{f, l}
		}
	}
	close(jobs)
	wg.Wait()
	return res, nil
}

// runFile builds one file of the suite at one level and runs it; the log
// goes to logs/<file>-O<level>.log.
func (c *SuiteConfig) runFile(ctx context.Context, rel, level string, incs []string, logs string) Outcome {
	src := filepath.Join(c.Dir, rel)
	name := strings.ReplaceAll(rel, string(filepath.Separator), "_") + "-O" + level
	exe := filepath.Join(logs, name+".exe")
	driver := "gozyme-cc"
	args := []string{"-O" + level}
	cxx := false
	if ext := filepath.Ext(rel); ext == ".cpp" || ext == ".cc" {
		driver, cxx = "gozyme-c++", true
	}
	text, _ := os.ReadFile(src)
	if flags, ok := RunLineFlags(string(text), level); c.RunFlags && ok {
		args = append(args, flags...)
	} else {
		if cxx {
			args = append(args, "-std=c++17")
		}
		if ompRE.Match(text) {
			args = append(args, "-fopenmp")
		}
	}
	args = append(args, "-I"+c.Dir, "-I"+filepath.Dir(src))
	for _, i := range incs {
		args = append(args, "-I"+i)
	}
	args = append(args, src, "-o", exe, "-lm")
	b := run(ctx, c.BuildTimeout, logs, []string{"GOZYME_JOBS=1"}, filepath.Join(c.Bin, driver), args...)
	log := "$ " + driver + " " + strings.Join(args, " ") + "\n" + b.out
	o := Outcome{Level: level, BuildLog: b.out}
	if b.err != nil || b.timedOut {
		o.Class, o.Detail = classifyBuild(b.out, b.timedOut)
	} else {
		r := run(ctx, c.RunTimeout, logs, nil, exe)
		log += "$ " + exe + "\n" + r.out
		o.RunLog = r.out
		o.Class, o.Detail = classifyRun(r.out, r.exit, r.signal, r.timedOut)
		if o.Class == WrongDeriv || o.Class == PrimalMismatch || (o.Class == Crash && r.signal == "") {
			o.Class, o.Detail = WrongDeriv, fmt.Sprintf("exit status %d: %s", r.exit, firstLine(r.out, suiteFailRE))
		}
		os.Remove(exe)
	}
	if o.Class != Pass {
		os.WriteFile(filepath.Join(logs, name+".log"), []byte(log), 0o644)
	}
	return o
}

var suiteFailRE = regexp.MustCompile(`(?i)error|fail|assert|mismatch|expected|!=`)

// Write prints counts per level and each failing file with its class.
func (r *SuiteResult) Write(w io.Writer) {
	fmt.Fprintf(w, "\nenzyme-suite: %d programs (%d skipped); logs of failures in %s\n", len(r.Files), r.Skipped, r.Logs)
	sum := NewSummary(r.Levels)
	for _, f := range r.Files {
		for _, l := range r.Levels {
			sum.Add(r.Out[f][l].Class, l)
		}
	}
	var names []string
	for _, c := range AllClasses() {
		names = append(names, suiteClassName(c))
	}
	sum.Write(w, names)
	fmt.Fprintln(w)
	for _, f := range r.Files {
		var parts []string
		for _, l := range r.Levels {
			if o := r.Out[f][l]; o.Class != Pass {
				parts = append(parts, fmt.Sprintf("-O%s %s", l, suiteClassName(o.Class)))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "FAIL %s: %s\n", f, strings.Join(parts, ", "))
		}
	}
}
