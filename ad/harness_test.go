package ad

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
)

// optLevels are the optimization levels every end-to-end AD test runs at
// (with -short, -O0 and -O2 only: see TestMain).
var optLevels = []string{"0", "1", "2", "3"}

// TestMain makes -short a quick check of the package: the end-to-end tests
// build their programs at -O0 and -O2 only (optLevels; tests that name
// their levels keep them), and runLeakChecked runs programs without
// valgrind (their outputs are still checked, their leaks not). It holds
// the directory of the programs tryBuildOpt builds (builds).
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		optLevels = []string{"0", "2"}
	}
	// The tests parse and differentiate hundreds of modules in this one
	// process; at Go's default GOGC=100 its collector took ~10% of the
	// process's CPU time. Unless GOGC says otherwise, collect at 4x the live
	// heap instead (the process peaked at ~600 MB, 2 tests at a time).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "gozyme-ad-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	builds.dir = dir
	return m.Run()
}

// builds are the programs tryBuildOpt built in this run of the package's
// tests, by what they were built from: a program built again the same way
// (a test's -O2 build and its leak-checked run, tests sharing a testdata
// program) is built once. Each has a directory of its own under dir,
// kept until the run ends (tests read the ad.ll beside the executable).
// Failed builds are not kept: each test asking sees its own failure.
var builds = struct {
	dir string
	mu  sync.Mutex
	m   map[string]*build
}{m: map[string]*build{}}

// build is one program of builds; mu is held while it is built, so that
// tests asking for the same program at once wait for one build.
type build struct {
	mu  sync.Mutex
	exe string // "" until built
}

// buildOf returns the entry of builds for the program built from the
// given parts, and its directory.
func buildOf(parts ...any) (*build, string) {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%q\x00", p)
	}
	key := hex.EncodeToString(h.Sum(nil))[:24]
	builds.mu.Lock()
	defer builds.mu.Unlock()
	b := builds.m[key]
	if b == nil {
		b = &build{}
		builds.m[key] = b
	}
	return b, filepath.Join(builds.dir, key)
}

// testdataC reads a C or C++ program (or a part of one) of testdata/.
func testdataC(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// buildC compiles a C program the way gozyme's link-time pipeline does
// (clang-14 to IR, the pre-AD pipeline, Differentiate, clang-14 to an
// executable) and returns the executable's path.
func buildC(t *testing.T, src, level string, flags ...string) string {
	t.Helper()
	exe, err := tryBuildC(t, src, level, flags...)
	if err != nil {
		t.Fatalf("-O%s: %v", level, err)
	}
	return exe
}

func tryBuildC(t *testing.T, src, level string, flags ...string) (string, error) {
	t.Helper()
	return tryBuild(t, "prog.c", src, level, flags...)
}

// buildCXX is buildC for C++ sources.
func buildCXX(t *testing.T, src, level string) string {
	t.Helper()
	exe, err := tryBuild(t, "prog.cc", src, level)
	if err != nil {
		t.Fatalf("-O%s: %v", level, err)
	}
	return exe
}

func tryBuild(t *testing.T, file, src, level string, flags ...string) (string, error) {
	t.Helper()
	return tryBuildOpt(t, file, src, level, nil, flags...)
}

// linkedLoops are the opt arguments with which gozyme's link-time
// pipeline (package preopt) shapes loops before AD: no runtime unrolling,
// no vectorization. LLVM's default pipelines, which buildC runs, turn
// the same loops into vector loops, remainders and the guards around them.
var linkedLoops = []string{"-unroll-runtime=false", "-vectorize-loops=false"}

// buildCLinked is buildC for the IR gozyme's link-time pipeline optimizes:
// the frontend's (as gozyme-cc embeds it), optimized once, before AD, with
// the loops shaped by linkedLoops. buildC optimizes clang's optimized IR.
func buildCLinked(t *testing.T, src, level string) string {
	t.Helper()
	exe, err := tryBuildCLinked(t, src, level)
	if err != nil {
		t.Fatalf("-O%s: %v", level, err)
	}
	return exe
}

// tryBuildCLinked is buildCLinked returning the build's error.
func tryBuildCLinked(t *testing.T, src, level string) (string, error) {
	t.Helper()
	return tryBuildOpt(t, "prog.c", src, level, linkedLoops, "-Xclang", "-disable-llvm-passes")
}

// tryBuildOpt is tryBuild with further arguments for the pre-AD pipeline's
// opt (at -O1 and above). A program already built the same way in this
// run is not built again (builds).
func tryBuildOpt(t *testing.T, file, src, level string, optArgs []string, flags ...string) (string, error) {
	t.Helper()
	if _, err := toolchains.Tool("clang"); err != nil {
		t.Skip(err)
	}
	return buildOnce(t, func(dir string) (string, error) {
		driver, link := "clang", []string{"-lm"}
		if strings.HasSuffix(file, ".cc") {
			driver, link = "clang++", nil
		}
		bc := compileBitcode(t, dir, driver, file, src, level, flags...)
		return finishBuildOpt(t, dir, driver, bc, level, optArgs, link...)
	}, file, src, level, optArgs, flags)
}

// buildOnce returns the program of builds built from parts, building it
// with build (in the directory it is given) when this run has not.
func buildOnce(t *testing.T, build func(dir string) (string, error), parts ...any) (string, error) {
	t.Helper()
	b, dir := buildOf(parts...)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.exe != "" {
		return b.exe, nil
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(dir) // a failure, or t.Fatal on the way
		}
	}()
	exe, err := build(dir)
	if err != nil {
		return "", err
	}
	ok = true
	b.exe = exe
	return exe, nil
}

// compileBitcode writes source src to file in dir and compiles it with
// driver to bitcode at -O<level>, returning the bitcode's path.
func compileBitcode(t *testing.T, dir, driver, file, src, level string, flags ...string) string {
	t.Helper()
	c := filepath.Join(dir, file)
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bc := filepath.Join(dir, "prog.bc")
	args := append([]string{"-c", "-emit-llvm", "-g", "-O" + level, "-Xclang", "-disable-O0-optnone", c, "-o", bc}, flags...)
	if _, err := toolchains.Run(context.Background(), driver, args...); err != nil {
		t.Fatal(err)
	}
	return bc
}

// preADModuleC is C source src compiled at -O<level> and through the
// pre-AD pipeline, as buildC differentiates it (with optArgs for opt, as
// buildCLinked's linkedLoops).
func preADModuleC(t *testing.T, src, level string, optArgs ...string) *ir.Module {
	t.Helper()
	if _, err := toolchains.Tool("clang"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	return preAD(t, dir, compileBitcode(t, dir, "clang", "prog.c", src, level), level, optArgs...)
}

// preAD runs the pre-AD pipeline of level on bitcode bc (in dir) and
// loads the result; optArgs go to opt at -O1 and above.
func preAD(t *testing.T, dir, bc, level string, optArgs ...string) *ir.Module {
	t.Helper()
	return loadIR(t, preADFile(t, dir, bc, level, optArgs...))
}

// preADFile is preAD's optimized module, as the text file opt wrote (no
// llvm-dis needed to read it).
func preADFile(t *testing.T, dir, bc, level string, optArgs ...string) string {
	t.Helper()
	pipeline := "default<O" + level + ">"
	if level == "0" {
		pipeline, optArgs = "always-inline,mem2reg", nil
	}
	opt := filepath.Join(dir, "opt.ll")
	if _, err := toolchains.Run(context.Background(), "opt", append(optArgs, "-passes="+pipeline, "-S", bc, "-o", opt)...); err != nil {
		t.Fatal(err)
	}
	return opt
}

// loadIR parses the IR file at path (text or bitcode).
func loadIR(t *testing.T, path string) *ir.Module {
	t.Helper()
	m, err := irutil.LoadFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// finishBuild runs the pre-AD pipeline on bitcode bc, differentiates it and
// links the result into an executable in dir.
func finishBuild(t *testing.T, dir, driver, bc, level string, link ...string) (string, error) {
	t.Helper()
	return finishBuildOpt(t, dir, driver, bc, level, nil, link...)
}

// finishBuildOpt is finishBuild with further arguments for the pre-AD
// pipeline's opt.
func finishBuildOpt(t *testing.T, dir, driver, bc, level string, optArgs []string, link ...string) (string, error) {
	t.Helper()
	ctx := context.Background()
	opt := preADFile(t, dir, bc, level, optArgs...)
	m := loadIR(t, opt)
	if _, err := Differentiate(m, Options{}); NeedsRuntimeActivity(err) {
		// As the link does: again, from a fresh copy, with run-time
		// activity checks.
		m = loadIR(t, opt)
		if _, err := Differentiate(m, Options{RuntimeActivity: true}); err != nil {
			return "", err
		}
	} else if err != nil {
		return "", err
	}
	if PrepareDenseViews(m) {
		var err error
		if m, err = lowerViewsInlined(ctx, dir, m); err != nil {
			return "", err
		}
	}
	ll := filepath.Join(dir, "ad.ll")
	if err := irutil.WriteText(m, ll); err != nil {
		t.Fatal(err)
	}
	if keep := os.Getenv("GOZYME_TEST_KEEP"); keep != "" {
		// The whole test name: subtests of different tests share their
		// last parts (every TestX/O2).
		name := strings.ReplaceAll(t.Name(), "/", "_") + "-O" + level + ".ll"
		if data, err := os.ReadFile(ll); err != nil || os.WriteFile(filepath.Join(keep, name), data, 0o644) != nil {
			t.Logf("GOZYME_TEST_KEEP: could not keep %s", name)
		}
	}
	exe := filepath.Join(dir, "prog")
	if _, err := toolchains.Run(ctx, driver, append([]string{"-O" + level, "-Wno-override-module", ll, "-o", exe}, link...)...); err != nil {
		t.Fatalf("compiling differentiated IR: %v", err)
	}
	return exe, nil
}

// lowerViewsInlined is the link's lowering of dense views (sparse.go):
// the always-inliner puts the functions receiving a view where it is made,
// then LowerDenseViews turns the accesses through it into calls.
func lowerViewsInlined(ctx context.Context, dir string, m *ir.Module) (*ir.Module, error) {
	pre, inlined := filepath.Join(dir, "views.ll"), filepath.Join(dir, "inlined.ll")
	if err := irutil.WriteText(m, pre); err != nil {
		return nil, err
	}
	if _, err := toolchains.Run(ctx, "opt", "-passes=always-inline", "-S", pre, "-o", inlined); err != nil {
		return nil, err
	}
	out, err := irutil.LoadFile(ctx, inlined)
	if err != nil {
		return nil, err
	}
	return out, LowerDenseViews(out)
}

// run executes a test program and returns its standard output; a non-zero
// exit fails the test with the program's output.
func run(t *testing.T, exe string) string {
	t.Helper()
	return runEnv(t, exe)
}

// runEnv is run with further environment variables for the program
// ("NAME=value", after the test process's own). Unlike t.Setenv it leaves
// the test process's environment alone, so tests that use it may run in
// parallel.
func runEnv(t *testing.T, exe string, env ...string) string {
	t.Helper()
	cmd := exec.Command(exe)
	cmd.Env = withEnv(env)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", exe, env, err, out)
	}
	return string(out)
}

// withEnv is the test process's environment followed by env (nil, which
// exec.Cmd reads as the process's own, where env is empty).
func withEnv(env []string) []string {
	if len(env) == 0 {
		return nil
	}
	return append(os.Environ(), env...)
}

// runLeakChecked runs a test program under valgrind's memcheck and fails on
// invalid accesses or leaked memory (gradient caches, tapes and shadow
// allocations must all be freed). With -short it runs the program without
// valgrind.
// runEveryLevelLeakChecked builds C program src at every level and runs it
// leak-checked (runLeakChecked): it must print "done" and no "FAIL".
func runEveryLevelLeakChecked(t *testing.T, src string) {
	t.Helper()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := runLeakChecked(t, buildC(t, src, o))
			if strings.Contains(out, "FAIL") || !strings.Contains(out, "done") {
				t.Fatal(out)
			}
		})
	}
}

func runLeakChecked(t *testing.T, exe string) string {
	t.Helper()
	return runLeakCheckedEnv(t, exe)
}

// runLeakCheckedEnv is runLeakChecked with further environment variables
// for the program, as runEnv.
func runLeakCheckedEnv(t *testing.T, exe string, env ...string) string {
	t.Helper()
	if testing.Short() {
		return runEnv(t, exe, env...)
	}
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		t.Skip("valgrind is not installed")
	}
	// --read-inline-info=no: reports name the function a frame was inlined
	// into, not the inlined one; what is checked is the same, and each run
	// starts ~0.07 CPU-s sooner (the inline info of libc's debug info).
	cmd := exec.Command(vg, "--quiet", "--leak-check=full", "--errors-for-leak-kinds=definite,indirect,possible",
		"--error-exitcode=99", "--read-inline-info=no", exe)
	cmd.Env = withEnv(env)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("valgrind %s %v: %v\n%s", exe, env, err, out)
	}
	return string(out)
}

// buildCWithIR is buildC for a C driver linked with a module of
// handwritten IR (llvm-link) before the pipeline and differentiation.
func buildCWithIR(t *testing.T, src, ll, level string) string {
	t.Helper()
	exe, err := tryBuildCWithIR(t, src, ll, level)
	if err != nil {
		t.Fatalf("-O%s: %v", level, err)
	}
	return exe
}

func tryBuildCWithIR(t *testing.T, src, ll, level string) (string, error) {
	t.Helper()
	return buildOnce(t, func(dir string) (string, error) {
		return finishBuild(t, dir, "clang", linkCWithIR(t, dir, src, ll, level), level, "-lm")
	}, "with IR", src, ll, level)
}

// linkCWithIR compiles C source src (with -g) at -O<level> and links it
// with the IR module ll into bitcode in dir, returning its path.
func linkCWithIR(t *testing.T, dir, src, ll, level string) string {
	t.Helper()
	if _, err := toolchains.Tool("clang"); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	c, irFile := filepath.Join(dir, "prog.c"), filepath.Join(dir, "hand.ll")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(irFile, []byte(ll), 0o644); err != nil {
		t.Fatal(err)
	}
	cbc, bc := filepath.Join(dir, "driver.bc"), filepath.Join(dir, "prog.bc")
	if _, err := toolchains.Run(ctx, "clang", "-c", "-emit-llvm", "-g", "-O"+level, "-Xclang", "-disable-O0-optnone", c, "-o", cbc); err != nil {
		t.Fatal(err)
	}
	if _, err := toolchains.Run(ctx, "llvm-link", cbc, irFile, "-o", bc); err != nil {
		t.Fatal(err)
	}
	return bc
}

// runSizes builds C program src at every level and runs it once for each
// value of the environment variable env, failing where its output lacks
// one of the wanted lines; then runs it leak-checked at -O2 with env set
// to the first value but one (or the only one).
func runSizes(t *testing.T, src, env string, values, wants []string) {
	t.Helper()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			exe := buildC(t, src, o)
			for _, v := range values {
				checkWants(t, runEnv(t, exe, env+"="+v), fmt.Sprintf("-O%s %s=%s", o, env, v), wants)
			}
		})
	}
	t.Run("leaks", func(t *testing.T) {
		runLeakCheckedEnv(t, buildC(t, src, "2"), env+"="+values[min(1, len(values)-1)])
	})
}

// runIRWants builds C driver src linked with IR module ll at each of levels
// (buildCWithIR) and fails where the program's output lacks one of the
// wanted lines; with leaks set, it then runs the -O2 build leak-checked.
func runIRWants(t *testing.T, src, ll string, levels []string, leaks bool, wants ...string) {
	t.Helper()
	for _, o := range levels {
		t.Run("O"+o, func(t *testing.T) {
			checkWants(t, run(t, buildCWithIR(t, src, ll, o)), "-O"+o, wants)
		})
	}
	if leaks {
		t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildCWithIR(t, src, ll, "2")) })
	}
}

// checkWants fails, naming the run, where out lacks one of wants.
func checkWants(t *testing.T, out, what string, wants []string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("%s: no %q in\n%s", what, want, out)
		}
	}
}

// requestedFields lists the fields of lc's record by index (once generated,
// in recordLayout's order).
func requestedFields(lc *loopCache) []*loopBuf {
	out := make([]*loopBuf, 0, len(lc.fields))
	for _, b := range lc.fields {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].field < out[j].field })
	return out
}
