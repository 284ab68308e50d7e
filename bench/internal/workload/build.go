package workload

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Each bench/workloads/<name>/ holds C sources (main.c with the primal,
// the gozyme gradient and a hand-written one) and adolc.cpp (the same
// objective on ADOL-C's adoubles), or, client-style, main.cpp. A C
// workload is linked twice: as gozyme does it (AD after optimization) and
// with GOZYME_AD_STAGE=pre (AD before optimization).

// Dirs lists the workloads, sorted: the folders of bench/workloads with a
// main.c (C, ADBench style) or a main.cpp (client-style C++).
func Dirs(root string) ([]string, error) {
	var dirs []string
	for _, pat := range []string{"main.c", "main.cpp"} {
		ms, err := filepath.Glob(filepath.Join(root, "bench", "workloads", "*", pat))
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			dirs = append(dirs, filepath.Dir(m))
		}
	}
	sort.Strings(dirs)
	return dirs, nil
}

// IsClientStyle says whether the workload in src is client-style C++.
func IsClientStyle(src string) bool {
	_, err := os.Stat(filepath.Join(src, "main.cpp"))
	return err == nil
}

// ClientFlags are the flags client code written for Enzyme is built with.
var ClientFlags = []string{"-O3", "-march=native", "-fno-math-errno", "-std=c++17"}

// Options change a build for another machine.
type Options struct {
	// Static links statically (with ADOL-C's ColPack), for a machine
	// without the libraries.
	Static bool
	// March replaces -march=native in ClientFlags when set (the machine
	// that runs the programs is not the one that builds them).
	March string
}

// clientFlags are ClientFlags with o's -march.
func (o Options) clientFlags() []string {
	flags := append([]string{}, ClientFlags...)
	for i, f := range flags {
		if f == "-march=native" && o.March != "" {
			flags[i] = "-march=" + o.March
		}
	}
	return flags
}

// libs are the libraries a workload links with, after the ADOL-C ones:
// extra (-lstdc++ -lm for the C workloads, -lm for the C++ ones).
func (o Options) libs(extra ...string) []string {
	libs := []string{"-ladolc"}
	if o.Static {
		libs = append(libs, "-lColPack")
	}
	libs = append(libs, extra...)
	if o.Static {
		libs = append(libs, "-static")
	}
	return libs
}

// Build compiles a workload's C sources with gozyme-cc (cc) and its
// adolc.cpp with clang++-14 into work, and links them twice: AD after
// optimization (post) and before (pre). A client-style workload (main.cpp)
// is compiled with gozyme-c++ (next to cc) and ClientFlags and linked once
// (pre is empty).
func Build(cc, src, work string, o Options) (post, pre string, err error) {
	if err := os.MkdirAll(work, 0o755); err != nil {
		return "", "", err
	}
	if IsClientStyle(src) {
		post, err = buildClient(filepath.Join(filepath.Dir(cc), "gozyme-c++"), src, work, o)
		return post, "", err
	}
	cflags := []string{"-O2", "-fno-math-errno", "-I", filepath.Dir(src)}
	var objs []string
	cs, _ := filepath.Glob(filepath.Join(src, "*.c"))
	for _, c := range cs {
		obj := filepath.Join(work, strings.TrimSuffix(filepath.Base(c), ".c")+".o")
		if err := RunQuiet(nil, cc, append(append([]string{}, cflags...), "-c", c, "-o", obj)...); err != nil {
			return "", "", err
		}
		objs = append(objs, obj)
	}
	cxx, err := exec.LookPath("clang++-14")
	if err != nil {
		return "", "", err
	}
	adolc := filepath.Join(work, "adolc.o")
	if err := RunQuiet(nil, cxx, append(append([]string{}, cflags...), "-c", filepath.Join(src, "adolc.cpp"), "-o", adolc)...); err != nil {
		return "", "", fmt.Errorf("%v (is libadolc-dev installed? make bench installs it)", err)
	}
	objs = append(objs, adolc)
	libs := o.libs("-lstdc++", "-lm")
	post = filepath.Join(work, "post")
	if err := RunQuiet(nil, cc, append(append(append([]string{"-O2"}, objs...), "-o", post), libs...)...); err != nil {
		return "", "", err
	}
	pre = filepath.Join(work, "pre")
	if err := RunQuiet([]string{"GOZYME_AD_STAGE=pre"}, cc, append(append(append([]string{"-O2"}, objs...), "-o", pre), libs...)...); err != nil {
		return "", "", err
	}
	return post, pre, nil
}

// buildClient compiles main.cpp with gozyme-c++ and adolc.cpp with
// clang++-14, both with the client flags, and links them with gozyme-c++.
func buildClient(cxxGozyme, src, work string, o Options) (string, error) {
	cflags := o.clientFlags()
	flags := append(append([]string{}, cflags...), "-I", src)
	main := filepath.Join(work, "main.o")
	if err := RunQuiet(nil, cxxGozyme, append(append([]string{}, flags...), "-c", filepath.Join(src, "main.cpp"), "-o", main)...); err != nil {
		return "", err
	}
	cxx, err := exec.LookPath("clang++-14")
	if err != nil {
		return "", err
	}
	adolc := filepath.Join(work, "adolc.o")
	if err := RunQuiet(nil, cxx, append(append([]string{}, flags...), "-c", filepath.Join(src, "adolc.cpp"), "-o", adolc)...); err != nil {
		return "", fmt.Errorf("%v (is libadolc-dev installed? make bench installs it)", err)
	}
	exe := filepath.Join(work, "post")
	link := append(append(cflags, main, adolc, "-o", exe), o.libs("-lm")...)
	return exe, RunQuiet(nil, cxxGozyme, link...)
}

// RunQuiet runs a command with env added, its output shown only on failure.
func RunQuiet(env []string, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}
