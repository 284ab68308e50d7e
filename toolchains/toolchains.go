// Package toolchains locates the LLVM 14 tools gozyme drives and runs them,
// echoing every invocation to stderr when its Config says so
// (GOZYME_VERBOSE).
package toolchains

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// LLVMVersion is the LLVM major version whose tools gozyme drives.
const LLVMVersion = "14"

var (
	toolMu    sync.Mutex
	toolCache = map[string]string{}
)

// Tool returns the path of an LLVM tool given its base name ("clang", "clang++",
// "opt", "llc", "llvm-dis", "llvm-as", "llvm-link", "ld.lld", ...).
// It looks, in order, in c.LLVMBin (GOZYME_LLVM_BIN), for NAME-14 on $PATH
// and in /usr/lib/llvm-14/bin (FindVersioned); an unversioned NAME on
// $PATH is never taken, since it may be another LLVM.
func (c Config) Tool(name string) (string, error) {
	return FindVersioned(c.LLVMBin, "GOZYME_LLVM_BIN", name, LLVMVersion,
		fmt.Sprintf("install clang-%s and llvm-%s", LLVMVersion, LLVMVersion))
}

// Tool is the zero Config's Tool, for tests and programs that have no
// configuration of their own.
func Tool(name string) (string, error) { return Config{}.Tool(name) }

// LogCommand prints argv to stderr, shell-quoted, when c.Verbose.
func (c Config) LogCommand(argv []string) {
	if !c.Verbose {
		return
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = Quote(a)
	}
	fmt.Fprintf(os.Stderr, "gozyme: %s\n", strings.Join(quoted, " "))
}

// Quote returns s quoted for a POSIX shell when it needs quoting.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '=' || r == ',' || r == ':' || r == '+' || r == '@' ||
			('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ToolError is a failed tool invocation; its message carries the tool's stderr.
type ToolError struct {
	Argv   []string
	Stderr string
	Err    error
}

func (e *ToolError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("%s failed: %s", filepath.Base(e.Argv[0]), msg)
}

func (e *ToolError) Unwrap() error { return e.Err }

// Run runs an LLVM tool by base name with args, capturing its stderr for the
// error it returns. Standard output is returned. The tool is found, and
// the command printed, as the Config ctx carries says (ConfigOf).
func Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	path, err := ConfigOf(ctx).Tool(name)
	if err != nil {
		return nil, err
	}
	return RunPath(ctx, path, args...)
}

// RunPath is Run for a program given by path.
func RunPath(ctx context.Context, path string, args ...string) ([]byte, error) {
	return RunPathEnv(ctx, path, nil, args...)
}

// RunPathEnv is RunPath with the environment env (nil: this process's).
func RunPathEnv(ctx context.Context, path string, env []string, args ...string) ([]byte, error) {
	argv := append([]string{path}, args...)
	ConfigOf(ctx).LogCommand(argv)
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), &ToolError{Argv: argv, Stderr: stderr.String(), Err: err}
	}
	return stdout.Bytes(), nil
}

// ExitCode returns the exit status carried by err (0 for nil, 1 when unknown).
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return ee.ExitCode()
	}
	return 1
}

// Interactive runs a program with the caller's stdin, stdout and stderr
// attached, as a compiler driver passing through to the real compiler does.
func (c Config) Interactive(path string, args []string, env []string) error {
	argv := append([]string{path}, args...)
	c.LogCommand(argv)
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if env != nil {
		cmd.Env = env
	}
	return cmd.Run()
}
