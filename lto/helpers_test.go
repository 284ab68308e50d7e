package lto

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// needTool skips the test when a program is missing and returns its path.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed", name)
	}
	return p
}

// run runs a command in dir and fails the test on error.
func run(t *testing.T, dir string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return out
}

// writeFile writes a file under dir, creating parent directories.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fatCompile compiles src (C text) to a fat object at dir/obj with extra flags.
func fatCompile(t *testing.T, dir, obj, src string, flags ...string) string {
	t.Helper()
	clang := needTool(t, "clang-14")
	c := writeFile(t, dir, obj+".c", src)
	out := filepath.Join(dir, obj)
	args := append([]string{"-c", "-Xclang", "-fembed-bitcode=all"}, flags...)
	args = append(args, c, "-o", out)
	run(t, dir, clang, args...)
	return out
}

// plainCompile compiles src to an ordinary object at dir/obj.
func plainCompile(t *testing.T, dir, obj, src string, flags ...string) string {
	t.Helper()
	clang := needTool(t, "clang-14")
	c := writeFile(t, dir, obj+".c", src)
	out := filepath.Join(dir, obj)
	args := append([]string{"-c"}, flags...)
	args = append(args, c, "-o", out)
	run(t, dir, clang, args...)
	return out
}

// LinkMain is gozyme-ld's main as the tests run it: Link with the
// configuration the environment gives now.
func LinkMain(args []string) int { return Link(ConfigFromEnv(), args) }
