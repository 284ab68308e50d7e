package e2e

import (
	"bytes"
	"debug/elf"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// setup marks a test parallel and makes its result depend on gozyme's sources.
func setup(t *testing.T) {
	t.Helper()
	t.Parallel()
	trackSources(t)
}

// copyProject copies tests/projects/NAME into a fresh temporary directory
// and returns the copy, so builds never write into the source tree.
func copyProject(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := copyTree(filepath.Join(repoRoot, "tests", "projects", name), dst); err != nil {
		t.Fatalf("copying project %s: %v", name, err)
	}
	return dst
}

// copyTree copies the files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// toolEnv is the environment with the gozyme commands first on PATH, plus
// extra "KEY=value" entries (which win over inherited ones). Variables that
// would change how the projects build (an outer make's MAKEFLAGS, the
// user's CC or CFLAGS) are dropped.
func toolEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS", "AR":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return append(env, extra...)
}

// tool is the path of one of the gozyme commands built by TestMain.
func tool(name string) string { return filepath.Join(binDir, name) }

// run runs a command in dir and returns its stdout; any failure ends the test
// with the command line, its exit status, stdout and stderr.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	stdout, stderr, err := runErr(dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), dir, err, stdout, stderr)
	}
	return stdout
}

// runErr runs a command in dir and returns its stdout, stderr and error.
func runErr(dir string, env []string, name string, args ...string) (string, string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// timed logs how long f took.
func timed(t *testing.T, what string, f func()) {
	t.Helper()
	start := time.Now()
	f()
	t.Logf("%s: %.1fs", what, time.Since(start).Seconds())
}

// analytic derivatives of the functions the test programs differentiate.
var analytic = map[string]func(float64) float64{
	"relu3": func(x float64) float64 {
		if x > 0 {
			return 3 * x * x
		}
		return 0
	},
	"square": func(x float64) float64 { return 2 * x },
	"cubic":  func(x float64) float64 { return -2 + x + 0.75*x*x }, // 1 - 2x + x^2/2 + x^3/4
	"area":   func(r float64) float64 { return 2 * math.Pi * r },
}

// checkDerivatives parses the "name x derivative" lines a test program
// printed and compares each derivative with the analytic one (1e-12
// relative; exact where it is 0). want gives how many points each function
// must have; other output lines are an error too.
func checkDerivatives(t *testing.T, out string, want map[string]int) {
	t.Helper()
	got := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Errorf("unexpected output line %q", line)
			continue
		}
		d, ok := analytic[f[0]]
		x, err1 := strconv.ParseFloat(f[1], 64)
		dx, err2 := strconv.ParseFloat(f[2], 64)
		if !ok || err1 != nil || err2 != nil {
			t.Errorf("unexpected output line %q", line)
			continue
		}
		got[f[0]]++
		if w := d(x); math.Abs(dx-w) > 1e-12*math.Abs(w) || math.IsNaN(dx) {
			t.Errorf("%s'(%g) = %.17g, want %.17g", f[0], x, dx, w)
		}
	}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("%d derivatives of %s printed, want %d; output:\n%s", got[name], name, n, out)
		}
	}
}

// sections returns the names of an ELF file's sections.
func sections(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	defer f.Close()
	names := map[string]bool{}
	for _, s := range f.Sections {
		names[s.Name] = true
	}
	return names
}

// checkFatObject fails unless the object at path embeds its bitcode.
func checkFatObject(t *testing.T, path string) {
	t.Helper()
	if !sections(t, path)[".llvmbc"] {
		t.Errorf("%s has no .llvmbc section: not compiled as a fat object", path)
	}
}

// checkNoBitcode fails if a linked executable kept the embedded bitcode.
func checkNoBitcode(t *testing.T, path string) {
	t.Helper()
	if s := sections(t, path); s[".llvmbc"] || s[".llvmcmd"] {
		t.Errorf("%s kept .llvmbc/.llvmcmd: the linker should have dropped them", path)
	}
}
