package wrapper

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/gozyme/gozyme/lto"
	"github.com/gozyme/gozyme/toolchains"
)

// linkInProcess does a link the way clang does it with gozyme-ld (at
// path gld) as its linker, with gozyme-ld's work done in this process:
// one Go program starts instead of two. clang -### says which command it
// would run; when that is gozyme-ld alone and clang says nothing else (no
// diagnostic, no other job), lto.Link runs on its arguments with cfg, the
// configuration the child gozyme-ld would have read from its environment,
// and a failure is reported and cleaned up as clang does. ok is false when
// clang must run the line itself.
func (d *driver) linkInProcess(args []string, gld string, cfg lto.Config) (code int, ok bool) {
	for _, a := range args {
		if a == "-v" || a == "-###" || strings.HasPrefix(a, "--verbose") {
			return 0, false // clang's own printing of the commands
		}
	}
	argv := append(append([]string{"-###"}, args...), "--ld-path="+gld)
	// clang prints to a file, not a pipe: no goroutines copy its output.
	out, err := os.CreateTemp("", "gozyme-clang-###-")
	if err != nil {
		return 0, false
	}
	os.Remove(out.Name())
	defer out.Close()
	c := exec.Command(d.clang, argv...)
	c.Stdout, c.Stderr = out, out
	d.cfg.Tools.LogCommand(c.Args)
	if c.Run() != nil {
		return 0, false
	}
	text, err := io.ReadAll(io.NewSectionReader(out, 0, 1<<20))
	if err != nil {
		return 0, false
	}
	ldArgs, ok := soleCommand(string(text), gld)
	if !ok {
		return 0, false
	}
	code = lto.Link(cfg, ldArgs)
	if code != 0 {
		if out := outputOf(ldArgs); out != "" {
			if st, err := os.Lstat(out); err == nil && st.Mode().IsRegular() {
				os.Remove(out) // clang removes a failed job's output
			}
		}
		fmt.Fprintf(os.Stderr, "clang: error: linker command failed with exit code %d (use -v to see invocation)\n", code)
	}
	return code, true
}

// soleCommand returns the arguments of the one command clang -### printed
// (its output is out), which must run prog; ok is false when the output
// holds anything else than clang's four lines about itself and that
// command.
func soleCommand(out, prog string) (args []string, ok bool) {
	var cmds [][]string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, " \""):
			cmds = append(cmds, toolchains.SplitJob(line))
		case strings.Contains(line, "clang version "), strings.HasPrefix(line, "Target: "),
			strings.HasPrefix(line, "Thread model: "), strings.HasPrefix(line, "InstalledDir: "):
		default:
			return nil, false // a diagnostic, a response file's contents
		}
	}
	if len(cmds) != 1 || len(cmds[0]) == 0 || cmds[0][0] != prog {
		return nil, false
	}
	return cmds[0][1:], true
}

// outputOf is the output file of a linker command line, "" when none.
func outputOf(args []string) string {
	expanded, err := lto.ExpandResponseFiles(args)
	if err != nil {
		return ""
	}
	line, err := lto.ParseLinkArgs(expanded)
	if err != nil {
		return ""
	}
	return line.Output
}
