// Command remote builds gozyme's benchmark workloads (bench/workloads) to
// be run on another, quiet machine, and reports their results (make
// bench-remote):
//
//	go run ./bench/remote -root . -out build/bench-remote [-workloads gmm,lse]
//	go run ./bench/remote -report results.txt -results bench/results
//
// The build machine is shared, so its wall-clock times are noise; a
// machine with many idle cores has no clang, LLVM or Go. The workloads are
// built here as make bench builds them (bench/internal/workload), but
// linked statically (-static, with ADOL-C's ColPack) and stripped, and the
// client-style ones with -march=x86-64-v3 instead of -march=native, since
// the machine that runs them is not this one. The output folder holds them
// with run.sh (which runs them in parallel, one per physical core) and its
// job list; -report turns the results file run.sh wrote into remote.md.
package main

import (
	_ "embed"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gozyme/gozyme/bench/internal/workload"
)

//go:embed run.sh
var runScript []byte

// march is the -march of the client-style workloads: AVX2 and FMA, which
// every x86 server of the last decade has.
const march = "x86-64-v3"

func main() {
	root := flag.String("root", ".", "repository root (holds bin/ and bench/workloads)")
	out := flag.String("out", "build/bench-remote", "folder for the programs and run.sh")
	only := flag.String("workloads", "", "comma-separated workloads to build (default all)")
	report := flag.String("report", "", "a results file of run.sh to report (builds nothing)")
	results := flag.String("results", "bench/results", "folder for remote.md")
	flag.Parse()
	var err error
	if *report != "" {
		err = writeReport(*root, *report, *results)
	} else {
		var names []string
		if *only != "" {
			names = strings.Split(*only, ",")
		}
		err = build(filepath.Join(*root, "bin", "gozyme-cc"), *root, *out, names)
		if err == nil {
			fmt.Printf("built in %s: copy it to a quiet machine with many cores, run its run.sh there, then go run ./bench/remote -report results.txt\n", *out)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/remote:", err)
		os.Exit(1)
	}
}

// build compiles the workloads of root (all, or those named) with
// gozyme-cc cc into out/<name>/post (and pre), strips them, and writes the
// job list and run.sh.
func build(cc, root, out string, names []string) error {
	cc, err := filepath.Abs(cc)
	if err != nil {
		return err
	}
	if _, err := os.Stat(cc); err != nil {
		return fmt.Errorf("%s not built (make build)", cc)
	}
	srcs, err := workload.Dirs(root)
	if err != nil {
		return err
	}
	strip, err := exec.LookPath("strip")
	if err != nil {
		if strip, err = exec.LookPath("llvm-strip-14"); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var jobs strings.Builder
	for _, src := range srcs {
		name := filepath.Base(src)
		if len(names) > 0 && !contains(names, name) {
			continue
		}
		work := filepath.Join(out, name)
		os.RemoveAll(work)
		post, pre, err := workload.Build(cc, src, work, workload.Options{Static: true, March: march})
		if err != nil {
			return err
		}
		objs, _ := filepath.Glob(filepath.Join(work, "*.o"))
		for _, o := range objs {
			os.Remove(o)
		}
		fmt.Fprintf(&jobs, "%s/post\n", name)
		exes := []string{post}
		if pre != "" {
			fmt.Fprintf(&jobs, "%s/pre J\n", name) // AD before optimization: gozyme's gradient only
			exes = append(exes, pre)
		}
		for _, exe := range exes {
			if msg, err := exec.Command(strip, exe).CombinedOutput(); err != nil {
				return fmt.Errorf("strip %s: %v\n%s", exe, err, msg)
			}
		}
		fmt.Println("built", name)
	}
	if err := os.WriteFile(filepath.Join(out, "jobs"), []byte(jobs.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "run.sh"), runScript, 0o755)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
