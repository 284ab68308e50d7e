package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// bazelTimeout bounds one Bazel command (building the Go standard library
// under Bazel takes minutes on 2 busy cores).
const bazelTimeout = 20 * time.Minute

// bazelCommonFlags keep Bazel from writing convenience symlinks (into the
// workspace or anywhere: a build only reports them, see bin) and its
// output readable in a test log.
var bazelCommonFlags = []string{"--experimental_convenience_symlinks=log_only", "--color=no", "--curses=no", "--noshow_progress"}

// bazelJVMFlags are startup options for Bazel's Java process: each --batch
// command is a fresh JVM, short-lived, for which the optimizing JIT
// compiler and the parallel garbage collector cost CPU time they never pay
// back (loading and analysing the workspace: 11 CPU-seconds without them,
// 5 with them). They change nothing Bazel builds.
var bazelJVMFlags = []string{"--host_jvm_args=-XX:TieredStopAtLevel=1", "--host_jvm_args=-XX:+UseSerialGC"}

// toolchainFlags build a workspace's C/C++ with the gozyme toolchain.
var toolchainFlags = []string{"--incompatible_enable_cc_toolchain_resolution", "--platforms=@gozyme//bazel:platform"}

// bazelRunner runs Bazel in one workspace with one output base, in --batch
// mode so that no server outlives a command.
type bazelRunner struct {
	t          *testing.T
	bazel      string
	workspace  string
	outputBase string
}

// run runs `bazel --batch COMMAND ARGS...` and returns its stderr (where
// Bazel reports); a failure ends the test with the output's tail.
func (b *bazelRunner) run(command string, args ...string) string {
	b.t.Helper()
	_, stderr := b.runOut(command, args...)
	return stderr
}

// bin is the bazel-bin directory of the last build: the target of the
// convenience symlink the build reported in its build events (what
// `bazel info bazel-bin` with its flags says, without starting another
// Bazel: ~2 CPU-s each).
func (b *bazelRunner) bin() string {
	b.t.Helper()
	f, err := os.Open(b.events())
	if err != nil {
		b.t.Fatal(err)
	}
	defer f.Close()
	var event struct {
		Symlinks *struct {
			List []struct{ Path, Action, Target string } `json:"convenienceSymlinks"`
		} `json:"convenienceSymlinksIdentified"`
	}
	for dec := json.NewDecoder(f); dec.More(); {
		event.Symlinks = nil
		if err := dec.Decode(&event); err != nil {
			b.t.Fatalf("reading %s: %v", b.events(), err)
		}
		if event.Symlinks == nil {
			continue
		}
		for _, l := range event.Symlinks.List {
			if l.Path == "bazel-bin" && l.Action == "CREATE" {
				if filepath.IsAbs(l.Target) {
					return l.Target
				}
				return filepath.Join(b.outputBase, l.Target)
			}
		}
	}
	b.t.Fatalf("the build's events (%s) name no bazel-bin", b.events())
	return ""
}

// events is the file a build writes its build events to (JSON).
func (b *bazelRunner) events() string { return b.outputBase + "-events.json" }

// runOut runs `bazel --batch COMMAND ARGS...` and returns its stdout and stderr.
func (b *bazelRunner) runOut(command string, args ...string) (string, string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bazelTimeout)
	defer cancel()
	if command == "build" {
		args = append([]string{"--experimental_convenience_symlinks_bep_event", "--build_event_json_file=" + b.events()}, args...)
	}
	argv := append(append(append([]string{"--batch"}, bazelJVMFlags...), "--output_base="+b.outputBase, command), args...)
	cmd := exec.CommandContext(ctx, b.bazel, argv...)
	cmd.Dir = b.workspace
	cmd.Env = toolEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	cpu := 0.0 // the command's CPU time, its actions' included (what a 2-core machine feels)
	if ps := cmd.ProcessState; ps != nil {
		cpu = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	b.t.Logf("bazel %s %s (in %s): %.1fs, %.1f CPU-s", command, strings.Join(args, " "), b.workspace, time.Since(start).Seconds(), cpu)
	if err != nil {
		b.t.Fatalf("bazel %s %s (in %s): %v\n%s\n%s", command, strings.Join(args, " "), b.workspace, err, stdout.String(), bazelLog(stderr.String()))
	}
	return stdout.String(), stderr.String()
}

// bazelLog is the end of Bazel's output without the Debian linux-sandbox's
// debug chatter.
func bazelLog(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, "src/main/tools/linux-sandbox") {
			lines = append(lines, l)
		}
	}
	return tail(strings.Join(lines, "\n"), 6000)
}

// bazelSetup skips the test when Bazel is not installed, or with -short
// (each Bazel test builds gozyme and the Go standard library with rules_go:
// minutes of CPU), and returns its
// path and a scratch directory for output bases that is removed afterwards
// (Bazel leaves read-only directories behind).
func bazelSetup(t *testing.T) (string, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no Bazel builds")
	}
	bazel, err := exec.LookPath("bazel")
	if err != nil {
		t.Skip("bazel is not installed (make bazel-deps installs bazel-bootstrap)")
	}
	setup(t)
	dir := t.TempDir()
	t.Cleanup(func() {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(path, 0o755)
			}
			return nil
		})
	})
	return bazel, dir
}

// bazelDiskCache is the --disk_cache flag the Bazel tests share across
// runs, as Go's build cache is: $GOZYME_BAZEL_DISK_CACHE, else
// gozyme/bazel-disk-cache under the user's cache directory (a temporary
// one, removed afterwards, where there is none or it cannot be made). Bazel's disk cache is
// content-addressed (an action's key covers its command line and the
// digests of its inputs), so a changed source rebuilds what depends on it
// and nothing stale is reused; the Go standard library, llir and the
// packages a change leaves alone come from it.
func bazelDiskCache(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("GOZYME_BAZEL_DISK_CACHE")
	if dir == "" {
		if base, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(base, "gozyme", "bazel-disk-cache")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Logf("no shared Bazel disk cache (%v): a temporary one", err)
				dir = ""
			}
		}
		if dir == "" {
			dir = filepath.Join(t.TempDir(), "bazel-disk-cache")
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("Bazel's disk cache: %v", err)
	}
	return "--disk_cache=" + dir
}

// fromCache reports whether a build's processes all came from the disk
// cache (Bazel 4.2 counts its hits as "remote cache hit"), but for
// Bazel's internal ones, and how many processes it ran.
func fromCache(t *testing.T, out string) (bool, int, map[string]int) {
	t.Helper()
	total, kinds := processCounts(t, out)
	hits := kinds["disk cache hit"] + kinds["remote cache hit"]
	return hits > 0 && hits+kinds["internal"] == total, total, kinds
}

var processesLine = regexp.MustCompile(`INFO: (\d+) process(?:es)?: ([^\n]*)\.`)

// processCounts parses Bazel's "INFO: N processes: 3 remote cache hit, 2
// internal." summary into counts by kind.
func processCounts(t *testing.T, out string) (int, map[string]int) {
	t.Helper()
	m := processesLine.FindAllStringSubmatch(out, -1)
	if m == nil {
		t.Fatalf("no process summary in Bazel's output:\n%s", bazelLog(out))
	}
	last := m[len(m)-1]
	total, _ := strconv.Atoi(last[1])
	kinds := map[string]int{}
	for _, part := range strings.Split(last[2], ", ") {
		f := strings.SplitN(part, " ", 2)
		n, err := strconv.Atoi(f[0])
		if len(f) != 2 || err != nil {
			t.Fatalf("cannot parse %q in %q", part, last[0])
		}
		kinds[f[1]] += n
	}
	return total, kinds
}

// TestBazelBuildsGozyme builds gozyme's commands with `bazel build //...`
// (rules_go, offline, host Go SDK) with the shared disk cache
// (bazelDiskCache), uses the Bazel-built gozyme-cc on the relu3 example,
// and checks that a build in an empty output base takes every action from
// the disk cache: after `bazel clean`, a second build must, unless the
// first one (a fresh output base too) already did, the cache holding a
// build of the same sources from an earlier run.
func TestBazelBuildsGozyme(t *testing.T) {
	bazel, tmp := bazelSetup(t)
	b := &bazelRunner{t: t, bazel: bazel, workspace: repoRoot, outputBase: filepath.Join(tmp, "out")}
	args := append(append([]string{}, bazelCommonFlags...), bazelDiskCache(t), "//...")
	first := b.run("build", args...)
	bin := b.bin()
	bins := map[string]string{}
	for _, name := range []string{"gozyme-cc", "gozyme-c++", "gozyme-fc", "gozyme-ld"} {
		bins[name] = filepath.Join(bin, "cmd", name, name+"_", name)
		if _, err := os.Stat(bins[name]); err != nil {
			t.Fatalf("bazel build //... did not build %s: %v", name, err)
		}
	}
	sums := fileSums(t, bins)

	// The Bazel-built commands work: relu3 compiled and linked with them
	// (gozyme-cc finds the Bazel-built gozyme-ld on PATH).
	work := t.TempDir()
	exe := filepath.Join(work, "relu3")
	env := append(toolEnv(), "PATH="+filepath.Dir(bins["gozyme-ld"])+string(os.PathListSeparator)+os.Getenv("PATH"))
	run(t, work, env, bins["gozyme-cc"], "-O2", filepath.Join(repoRoot, "examples", "relu3", "relu3.c"), "-o", exe, "-lm")
	if out := run(t, work, env, exe); !strings.Contains(out, "all derivatives match") {
		t.Errorf("relu3 built by the Bazel-built gozyme-cc printed:\n%s", out)
	}

	if cached, total, kinds := fromCache(t, first); cached {
		t.Logf("the build took every action from the disk cache (%d processes, %v): no rebuild after bazel clean needed", total, kinds)
		return
	}
	b.run("clean")
	out := b.run("build", args...)
	cached, total, kinds := fromCache(t, out)
	t.Logf("rebuild after bazel clean: %d processes, %v", total, kinds)
	if !cached {
		t.Errorf("rebuild after bazel clean ran actions instead of reusing the disk cache: %d processes, %v", total, kinds)
	}
	if again := fileSums(t, bins); !equalSums(sums, again) {
		t.Errorf("commands differ after the rebuild from the disk cache: %v, then %v", sums, again)
	}
}

// TestBazelToolchain builds tests/bazel (a cc_library with a model; a C and
// a C++ cc_binary that differentiate it with __enzyme_autodiff) with the
// gozyme toolchain, first using the installed gozyme (the commands TestMain
// built, a path), then, with -c opt, gozyme built by Bazel with rules_go (a
// label), and checks the gradients against central finite differences each
// time. The installed build is repeated after `bazel clean` and must give
// identical outputs (both without a disk cache, so that the repeat runs
// its actions again); nothing may be written into the workspace. The -c
// opt build uses the shared disk cache (bazelDiskCache): gozyme's packages
// and the Go standard library under rules_go, unchanged since the last
// run, come from it.
func TestBazelToolchain(t *testing.T) {
	bazel, tmp := bazelSetup(t)
	ws := copyBazelWorkspace(t, filepath.Join(tmp, "ws"))
	before := listFiles(t, ws)
	b := &bazelRunner{t: t, bazel: bazel, workspace: ws, outputBase: filepath.Join(tmp, "out")}
	flags := append(append([]string{}, bazelCommonFlags...), toolchainFlags...)
	installed := append(append([]string{}, flags...), "--extra_toolchains=@gozyme_installed//:toolchain", "//app:all")

	b.run("build", installed...)
	bin := b.bin()
	outputs := map[string]string{
		"grad":     filepath.Join(bin, "app", "grad"),
		"grad_cxx": filepath.Join(bin, "app", "grad_cxx"),
		"model":    modelObject(t, bin),
	}
	checkBazelOutputs(t, ws, bin)
	for _, params := range []string{filepath.Join(bin, "app", "grad-2.params"), outputs["model"] + ".params"} {
		if _, err := os.Stat(params); err != nil {
			t.Errorf("the build used no response file %s: %v", params, err)
		}
	}
	sums := fileSums(t, outputs)

	b.run("clean")
	b.run("build", installed...)
	if again := fileSums(t, outputs); !equalSums(sums, again) {
		t.Errorf("outputs differ between two builds: %v, then %v", sums, again)
	}

	opt := append(append([]string{}, flags...), bazelDiskCache(t), "-c", "opt", "//app:all")
	b.run("build", opt...)
	checkBazelOutputs(t, ws, b.bin())

	if after := listFiles(t, ws); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("bazel wrote into the workspace: before %v, after %v", before, after)
	}
}

// checkBazelOutputs checks tests/bazel's outputs under bin: a fat model
// object, binaries without bitcode that print correct gradients.
func checkBazelOutputs(t *testing.T, ws, bin string) {
	t.Helper()
	checkFatObject(t, modelObject(t, bin))
	for _, name := range []string{"grad", "grad_cxx"} {
		exe := filepath.Join(bin, "app", name)
		checkNoBitcode(t, exe)
		checkGradient(t, run(t, ws, toolEnv(), exe))
	}
}

// modelObject is the model library's object file under bin (model.o, or
// model.pic.o where Bazel compiles position-independent code).
func modelObject(t *testing.T, bin string) string {
	t.Helper()
	objs, _ := filepath.Glob(filepath.Join(bin, "model", "_objs", "model", "model*.o"))
	if len(objs) != 1 {
		t.Fatalf("want one model object under %s, found %v", bin, objs)
	}
	return objs[0]
}

// copyBazelWorkspace copies tests/bazel to dst, points its @gozyme at this
// checkout and adds @gozyme_installed, the toolchain using the commands
// TestMain built.
func copyBazelWorkspace(t *testing.T, dst string) string {
	t.Helper()
	if err := copyTree(filepath.Join(repoRoot, "tests", "bazel"), dst); err != nil {
		t.Fatalf("copying tests/bazel: %v", err)
	}
	workspace := filepath.Join(dst, "WORKSPACE")
	data, err := os.ReadFile(workspace)
	if err != nil {
		t.Fatal(err)
	}
	old := `path = "../..",`
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("tests/bazel/WORKSPACE has no %s to point at the checkout", old)
	}
	data = bytes.Replace(data, []byte(old), []byte("path = "+strconv.Quote(repoRoot)+","), 1)
	data = append(data, "\ngozyme_cc_toolchain(\n    name = \"gozyme_installed\",\n    bin_dir = "+strconv.Quote(binDir)+",\n)\n"...)
	if err := os.WriteFile(workspace, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// checkGradient parses grad's "w<i> gradient finite-difference" lines and
// compares each pair (1e-6 relative: the finite difference's own error).
func checkGradient(t *testing.T, out string) {
	t.Helper()
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || !strings.HasPrefix(f[0], "w") {
			t.Errorf("unexpected output line %q", line)
			continue
		}
		g, err1 := strconv.ParseFloat(f[1], 64)
		fd, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil {
			t.Errorf("unexpected output line %q", line)
			continue
		}
		n++
		if math.Abs(g-fd) > 1e-6*(1+math.Abs(fd)) || math.IsNaN(g) || g == 0 {
			t.Errorf("d loss/d %s = %.17g, finite difference %.17g", f[0], g, fd)
		}
	}
	if n != 3 {
		t.Errorf("%d gradient components printed, want 3; output:\n%s", n, out)
	}
}

// fileSums returns the SHA-256 of each named file.
func fileSums(t *testing.T, files map[string]string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	for name, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		sum := sha256.Sum256(data)
		sums[name] = hex.EncodeToString(sum[:8])
	}
	return sums
}

func equalSums(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// listFiles returns every path under dir, relative and sorted.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatalf("listing %s: %v", dir, err)
	}
	return files
}

// TestBazelBuildFiles checks, without Bazel, that every gozyme package the
// commands are built from has a BUILD.bazel whose deps are exactly its
// non-standard imports, so the Bazel build cannot silently go stale.
func TestBazelBuildFiles(t *testing.T) {
	t.Parallel()
	trackSources(t)
	const module = "github.com/gozyme/gozyme"
	list := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.ImportPath}} {{join .Imports \" \"}}{{end}}{{end}}", "./cmd/...")
	list.Dir = repoRoot
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/...: %v", err)
	}
	depsBlock := regexp.MustCompile(`(?s)\bdeps = \[(.*?)\]`)
	quoted := regexp.MustCompile(`"([^"]+)"`)
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		var want []string
		for _, imp := range f[1:] {
			switch {
			case strings.HasPrefix(imp, module+"/"):
				want = append(want, "//"+strings.TrimPrefix(imp, module+"/"))
			case strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
				want = append(want, "@gozyme_go_deps//"+imp)
			}
		}
		rel := strings.TrimPrefix(f[0], module+"/")
		build, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(rel), "BUILD.bazel"))
		if err != nil {
			t.Errorf("package %s has no BUILD.bazel: %v", f[0], err)
			continue
		}
		var got []string
		if m := depsBlock.FindSubmatch(build); m != nil {
			for _, q := range quoted.FindAllSubmatch(m[1], -1) {
				got = append(got, string(q[1]))
			}
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s/BUILD.bazel: deps = %q, but the package imports %q", rel, got, want)
		}
	}
}
