package toolchains

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// Started is an LLVM tool started before its input exists, reading it from
// standard input once Feed names the file. Loading an LLVM tool (its
// shared libraries' relocations, its options' registration) takes about
// 15 ms before it reads anything; started early, that happens while
// gozyme still computes the input, on another core. Its arguments name the
// input "-"; the tool's output is the same as for the file but for the
// module's identifier, which gozyme's outputs do not depend on, and, in a
// module without a source_filename (clang's modules, and the modules
// gozyme writes from them, all have one), the source file name that LLVM
// takes from it: "<stdin>" instead of the temporary file's path.
type Started struct {
	ctx    context.Context
	argv   []string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   bool
}

// Start starts the LLVM tool name with args, one of which is "-" (the
// input Feed gives it). The caller must call Feed or Cancel.
func Start(ctx context.Context, name string, args ...string) (*Started, error) {
	path, err := ConfigOf(ctx).Tool(name)
	if err != nil {
		return nil, err
	}
	s := &Started{ctx: ctx, argv: append([]string{path}, args...)}
	s.cmd = exec.CommandContext(ctx, path, args...)
	s.cmd.Stdout, s.cmd.Stderr = &s.stdout, &s.stderr
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, &ToolError{Argv: s.argv, Err: err}
	}
	return s, nil
}

// Feed gives the started tool the file at path as its input, waits for it
// and returns its standard output, as Run would have for the command line
// naming path instead of "-" (printed so under GOZYME_VERBOSE, with the
// redirection). Its error messages name path rather than "<stdin>".
func (s *Started) Feed(path string) ([]byte, error) {
	cfg := ConfigOf(s.ctx)
	if cfg.Verbose {
		quoted := make([]string, len(s.argv))
		for i, a := range s.argv {
			quoted[i] = Quote(a)
		}
		fmt.Fprintf(os.Stderr, "gozyme: %s < %s\n", strings.Join(quoted, " "), Quote(path))
	}
	s.done = true
	f, err := os.Open(path)
	if err == nil {
		_, err = io.Copy(s.stdin, f)
		f.Close()
	}
	if cerr := s.stdin.Close(); err == nil {
		err = cerr
	}
	werr := s.cmd.Wait()
	if werr != nil {
		stderr := strings.ReplaceAll(s.stderr.String(), "<stdin>", path)
		return s.stdout.Bytes(), &ToolError{Argv: s.argv, Stderr: stderr, Err: werr}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: feeding %s: %w", s.argv[0], path, err)
	}
	return s.stdout.Bytes(), nil
}

// Cancel stops a started tool that will not be fed; after Feed it does
// nothing, so that callers may defer it.
func (s *Started) Cancel() {
	if s == nil || s.done {
		return
	}
	s.done = true
	s.cmd.Process.Kill()
	s.stdin.Close()
	s.cmd.Wait()
}
