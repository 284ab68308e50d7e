// Package wrapper is the compiler driver behind gozyme-cc and gozyme-c++:
// it runs clang-14 (clang++-14) exactly as the user asked, except that
// every object file it makes is a fat object (the module's pre-optimization
// bitcode embedded in SHF_EXCLUDE sections) and every link goes through
// gozyme-ld. gozyme-fc does the same over flang-new-16 (fortran.go).
package wrapper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"github.com/mattn/go-shellwords"

	"github.com/gozyme/gozyme/lto"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/gozyme/gozyme/toolchains/flang"
)

// Languages Main accepts: the driver it wraps.
const (
	LangC   = "c"   // gozyme-cc wraps clang-14
	LangCXX = "c++" // gozyme-c++ wraps clang++-14
)

// driver is one wrapper invocation.
type driver struct {
	prog    string // gozyme-cc, gozyme-c++ or gozyme-fc, for error messages
	clang   string // path of clang-14, clang++-14 or flang-new-16
	fortran bool   // wrapping flang-new-16 (gozyme-fc)
	cfg     lto.Config
	env     Config // the environment, as ConfigFromEnv read it (cfg is env.LTO)

	hdrOnce sync.Once
	hdr     []string // headerFlags, once asked
}

// Main runs the wrapper for lang (LangC, LangCXX or LangFortran) on args
// (os.Args[1:]) with the configuration cfg (ConfigFromEnv) and returns
// the exit status: the compiler's own, or 1 after an error of the
// wrapper's, reported as "gozyme-cc: error: ...".
func Main(lang string, cfg Config, args []string) (code int) {
	d := &driver{prog: "gozyme-cc", cfg: cfg.LTO, env: cfg}
	defer func() {
		if p := recover(); p != nil {
			code = d.fail(fmt.Errorf("internal error: %v; please report this to the gozyme developers with the command line", p))
		}
	}()
	tool := "clang"
	switch lang {
	case LangC:
	case LangCXX:
		d.prog, tool = "gozyme-c++", "clang++"
	case LangFortran:
		d.prog, d.fortran = "gozyme-fc", true
	default:
		return d.fail(fmt.Errorf("unknown language %q (want %q, %q or %q)", lang, LangC, LangCXX, LangFortran))
	}
	var path string
	var err error
	if d.fortran {
		path, err = flang.Driver(d.cfg.Tools)
	} else {
		path, err = d.cfg.Tools.Tool(tool)
	}
	if err != nil {
		return d.fail(err)
	}
	d.clang = path
	extra, err := shellwords.Parse(cfg.Flags)
	if err != nil {
		return d.fail(fmt.Errorf("GOZYME_FLAGS: %v", err))
	}
	// GOZYME_FLAGS go to every compiler invocation, so they take part in
	// classification too (GOZYME_FLAGS=-O2 changes the -O level).
	orig := append(append([]string(nil), args...), extra...)
	expanded, err := ExpandResponseFiles(orig)
	if err != nil {
		return d.fail(err)
	}
	cmd := Classify(expanded)
	var scan linkScan
	if cmd.Mode == Link {
		// The Fortran runtime, when the link needs it (fortran.go).
		scan = d.scanLink(cmd)
		orig = append(orig, d.fortranLinkArgs(scan.fortran)...)
	}
	switch cmd.Mode {
	case Compile:
		if d.fortran {
			code, err = d.compileFortran(orig, cmd)
			break
		}
		code, err = d.compile(orig, expanded, cmd)
	case CompileAndLink:
		code, err = d.compileAndLink(expanded, cmd)
	case Link:
		code, err = d.link(orig, cmd, scan.plain)
	default:
		err = d.exec(orig)
	}
	if err != nil {
		return d.fail(err)
	}
	return code
}

// ctx is the context of the wrapper's tool runs: it carries the
// toolchain's configuration (toolchains.Run reads it there).
func (d *driver) ctx() context.Context {
	return toolchains.WithConfig(context.Background(), d.cfg.Tools)
}

// fail reports one of the wrapper's own errors the way a compiler does.
func (d *driver) fail(err error) int {
	fmt.Fprintf(os.Stderr, "%s: error: %v\n", d.prog, err)
	return 1
}

// exec replaces the wrapper by clang with args, so that everything clang
// prints, reads and exits with is exactly its own.
func (d *driver) exec(args []string) error {
	argv := append([]string{d.clang}, args...)
	d.cfg.Tools.LogCommand(argv)
	err := syscall.Exec(d.clang, argv, os.Environ())
	return fmt.Errorf("running %s: %v", d.clang, err)
}

// run runs clang with args and the caller's stdio. A clang failure is
// returned as its exit status (clang has reported it); a failure to run
// clang at all is an error.
func (d *driver) run(args []string, env []string) (int, error) {
	err := d.cfg.Tools.Interactive(d.clang, args, env)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 1, fmt.Errorf("running %s: %v", d.clang, err)
	}
	return toolchains.ExitCode(err), nil
}

// driverDiagnostics asks clang what it says about the arguments of a
// command line as a whole (clang -###: nothing runs): its unused-argument
// diagnostics are printed, and when one is an error (-Werror) stop is set
// and code is clang's exit status for the line. Other diagnostics are left
// to the steps that run.
func (d *driver) driverDiagnostics(args []string) (code int, stop bool) {
	c := exec.Command(d.clang, append([]string{"-###"}, args...)...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	d.cfg.Tools.LogCommand(c.Args)
	if err := c.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			return 0, false
		}
	}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if !strings.HasSuffix(l, "-Wunused-command-line-argument]") {
			continue
		}
		fmt.Fprintln(os.Stderr, l)
		if strings.Contains(l, ": error: ") {
			stop, code = true, 1
		}
	}
	return code, stop
}
