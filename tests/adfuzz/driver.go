package adfuzz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Config says how the driver builds and runs programs.
type Config struct {
	Bin          string        // directory holding gozyme-cc and gozyme-c++
	Levels       []string      // optimization levels, e.g. "0", "2"
	Work         string        // scratch directory (one subdirectory per seed)
	RunTimeout   time.Duration // per run of a program
	BuildTimeout time.Duration // per build
	Sanity       bool          // reference build with -fsanitize=undefined,address
	KeepTemps    bool          // keep gozyme's intermediate IR of failing builds (GOZYME_KEEP_TEMPS)
	Gen          Options
}

// Outcome is the result of one program at one level.
type Outcome struct {
	Seed     uint64
	Level    string
	Class    Class
	Detail   string // the line that says what went wrong
	Program  Program
	BuildLog string
	RunLog   string
	Dir      string // where the build happened (kept temps live in Dir/temps)
}

// RunSeed generates the program of seed, builds a reference with plain
// clang (primal only), then builds and runs it with gozyme at every level.
func (c *Config) RunSeed(ctx context.Context, seed uint64) []Outcome {
	p := Generate(seed, c.Gen)
	dir := filepath.Join(c.Work, fmt.Sprint(seed))
	outs := make([]Outcome, 0, len(c.Levels))
	fail := func(class Class, detail, blog, rlog string) []Outcome {
		for _, l := range c.Levels {
			outs = append(outs, Outcome{Seed: seed, Level: l, Class: class, Detail: detail, Program: p, BuildLog: blog, RunLog: rlog, Dir: dir})
		}
		return outs
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(Invalid, err.Error(), "", "")
	}
	src := filepath.Join(dir, p.FileName())
	if err := os.WriteFile(src, []byte(p.Source), 0o644); err != nil {
		return fail(Invalid, err.Error(), "", "")
	}
	ref, blog, rlog, err := c.reference(ctx, p, dir, src)
	if err != nil {
		return fail(Invalid, err.Error(), blog, rlog)
	}
	for _, l := range c.Levels {
		o := c.runLevel(ctx, p, dir, src, l, ref)
		o.Seed, o.Level, o.Program, o.Dir = seed, l, p, dir
		outs = append(outs, o)
	}
	return outs
}

// reference builds the primal-only program with plain clang and returns the
// primal values it prints.
func (c *Config) reference(ctx context.Context, p Program, dir, src string) ([]string, string, string, error) {
	cc := "clang-14"
	if p.CXX {
		cc = "clang++-14"
	}
	exe := filepath.Join(dir, "reference")
	args := []string{"-O0", "-g", "-D" + PrimalOnlyMacro, src, "-o", exe, "-lm"}
	if c.Sanity {
		args = append([]string{"-fsanitize=undefined,address", "-fno-sanitize-recover=all"}, args...)
	}
	r := run(ctx, c.BuildTimeout, dir, nil, cc, args...)
	if r.err != nil || r.timedOut {
		return nil, r.out, "", fmt.Errorf("%s rejects the program: %s", cc, firstLine(r.out, errorRE))
	}
	rr := run(ctx, c.RunTimeout, dir, nil, exe)
	if rr.err != nil || rr.timedOut || rr.exit != 0 {
		what := "sanity run"
		if !c.Sanity {
			what = "reference run"
		}
		return nil, r.out, rr.out, fmt.Errorf("%s fails (exit %d %s): %s", what, rr.exit, rr.signal, firstLine(rr.out, sanitizerRE))
	}
	return primalLines(rr.out), r.out, rr.out, nil
}

// runLevel builds the program with gozyme at -O<level>, runs it, and
// classifies what happened.
func (c *Config) runLevel(ctx context.Context, p Program, dir, src, level string, ref []string) Outcome {
	driver, extra := "gozyme-cc", []string{"-lm"}
	if p.CXX {
		driver, extra = "gozyme-c++", []string{"-std=c++17"}
	}
	exe := filepath.Join(dir, "prog-O"+level)
	args := append([]string{"-O" + level, "-g", src, "-o", exe}, extra...)
	env := []string{"GOZYME_JOBS=1"}
	temps := filepath.Join(dir, "temps-O"+level)
	if c.KeepTemps {
		os.RemoveAll(temps)
		os.MkdirAll(temps, 0o755)
		env = append(env, "GOZYME_KEEP_TEMPS="+temps)
	}
	b := run(ctx, c.BuildTimeout, dir, env, filepath.Join(c.Bin, driver), args...)
	blog := "$ " + driver + " " + strings.Join(args, " ") + "\n" + b.out
	if b.err != nil || b.timedOut {
		class, detail := classifyBuild(b.out, b.timedOut)
		return Outcome{Class: class, Detail: detail, BuildLog: blog}
	}
	r := run(ctx, c.RunTimeout, dir, nil, exe)
	class, detail := classifyRun(r.out, r.exit, r.signal, r.timedOut)
	if class == Pass {
		if d := comparePrimal(primalLines(r.out), ref); d != "" {
			class, detail = PrimalMismatch, d
		}
	}
	if class == Pass {
		os.Remove(exe)
		os.RemoveAll(temps)
	}
	return Outcome{Class: class, Detail: detail, BuildLog: blog, RunLog: r.out}
}

// result is what run saw of one command.
type result struct {
	out      string
	exit     int
	signal   string
	timedOut bool
	err      error
}

// run runs name with args in dir under a timeout, stdout and stderr together.
func run(ctx context.Context, timeout time.Duration, dir string, env []string, name string, args ...string) result {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	r := result{out: buf.String(), err: err}
	if ctx.Err() == context.DeadlineExceeded {
		r.timedOut = true
		return r
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signal = ws.Signal().String()
		} else {
			r.exit = ee.ExitCode()
		}
	}
	return r
}

// SaveFailure writes a failing outcome's program, logs and a summary into
// dir: the program's source, build.log, run.log and outcome.txt.
func SaveFailure(o Outcome, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		o.Program.FileName(): o.Program.Source,
		"build.log":          o.BuildLog,
		"run.log":            o.RunLog,
		"outcome.txt": fmt.Sprintf("seed %d -O%s: %s\n%s\nknobs %s; modes %s\n", o.Seed, o.Level, o.Class, o.Detail,
			o.Program.Knobs, o.Program.Modes),
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	temps := filepath.Join(o.Dir, "temps-O"+o.Level)
	if _, err := os.Stat(temps); err == nil {
		os.RemoveAll(filepath.Join(dir, "temps"))
		return os.Rename(temps, filepath.Join(dir, "temps"))
	}
	return nil
}
