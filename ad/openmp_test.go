package ad

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// OpenMP tests: each testdata/omp_*.c program differentiates a function
// with OpenMP constructs in reverse and forward mode and checks both
// against central differences (omp_check.h). Here each is built with
// -fopenmp and without (the serial build, where the pragmas are ignored)
// at every level, and its gradients at 1, 2 and 8 threads must equal the
// serial build's within rounding; 8 threads on a 2-core machine
// interleave the threads differently on every run, so the 8-thread run is
// repeated: a racy adjoint shows as a wrong gradient on some run.

// ompRepeats is how often the 8-thread run is repeated.
const ompRepeats = 5

// buildOpenMP builds testdata program name at -O<level>, with -fopenmp
// when parallel. A program built the same way before in this run (the
// leak check's -O2 builds) is not built again (buildOnce).
func buildOpenMP(t *testing.T, name, level string, parallel bool) string {
	t.Helper()
	if _, err := os.Stat("/usr/lib/llvm-14/lib/libomp.so"); err != nil && parallel {
		t.Skip("libomp-14-dev is not installed (make deps)")
	}
	inc, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	flags := []string{"-I" + inc}
	link := []string{"-lm"}
	if parallel {
		flags = append(flags, "-fopenmp")
		link = append(link, "-fopenmp")
	}
	src := testdataC(t, name)
	exe, err := buildOnce(t, func(dir string) (string, error) {
		bc := compileBitcode(t, dir, "clang", "prog.c", src, level, flags...)
		return finishBuild(t, dir, "clang", bc, level, link...)
	}, "openmp", src, level, flags, link)
	if err != nil {
		t.Fatalf("-O%s: %v", level, err)
	}
	return exe
}

// runThreads runs exe on a team of the given size and returns its output;
// a failed check or a non-zero exit fails the test.
func runThreads(t *testing.T, exe string, threads int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a deadlock fails, not hangs
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), fmt.Sprintf("OMP_NUM_THREADS=%d", threads))
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "FAIL") {
		t.Fatalf("%d threads: %v\n%s", threads, err, out)
	}
	return string(out)
}

// ompResults reads the "grad", "fwd" and "value" lines of a run: key ->
// value.
func ompResults(t *testing.T, out string) map[string]float64 {
	t.Helper()
	res := map[string]float64{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "grad", "fwd", "value":
			v, err := strconv.ParseFloat(f[len(f)-1], 64)
			if err != nil {
				t.Fatalf("bad line %q", line)
			}
			res[strings.Join(f[:len(f)-1], " ")] = v
		}
	}
	if len(res) == 0 {
		t.Fatalf("no results in\n%s", out)
	}
	return res
}

// sameResults fails where got differs from the serial build's results
// beyond rounding (sums in another order).
func sameResults(t *testing.T, what string, got, serial map[string]float64) {
	t.Helper()
	for k, want := range serial {
		v, ok := got[k]
		scale := 1.0
		if a := want; a > 1 || a < -1 {
			scale = max(a, -a)
		}
		if !ok || !(v-want <= 1e-11*scale && want-v <= 1e-11*scale) {
			t.Errorf("%s: %s = %.17g, the serial build gives %.17g", what, k, v, want)
		}
	}
}

// checkOpenMP runs the checks of one testdata program at every level.
func checkOpenMP(t *testing.T, name string) {
	t.Helper()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			serial := ompResults(t, runThreads(t, buildOpenMP(t, name, o, false), 1))
			exe := buildOpenMP(t, name, o, true)
			for _, n := range []int{1, 2} {
				sameResults(t, fmt.Sprintf("%d threads", n), ompResults(t, runThreads(t, exe, n)), serial)
			}
			for k := 0; k < ompRepeats; k++ {
				sameResults(t, fmt.Sprintf("8 threads, run %d", k+1), ompResults(t, runThreads(t, exe, 8)), serial)
			}
		})
	}
}

// TestOpenMPSharedScalarRun: a parallel loop whose iterations all read a
// shared scalar (its adjoint is added into by every thread).
func TestOpenMPSharedScalarRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_shared_scalar.c")
}

// TestOpenMPReductionRun: reduction(+), (*) and (max) clauses.
func TestOpenMPReductionRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_reduction.c")
}

// TestOpenMPCriticalRun: per-thread partial sums added into shared totals
// in critical sections, unnamed and named.
func TestOpenMPCriticalRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_critical.c")
}

// TestOpenMPAtomicRun: #pragma omp atomic += and -= of doubles and a float.
func TestOpenMPAtomicRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_atomic.c")
}

// TestOpenMPFirstprivateRun: firstprivate, private and lastprivate.
func TestOpenMPFirstprivateRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_firstprivate.c")
}

// TestOpenMPTwoRegionsRun: parallel regions in a row reading each other's
// results across threads, and two worksharing loops in one region.
func TestOpenMPTwoRegionsRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_two_regions.c")
}

// TestOpenMPRegionInLoopRun: a parallel region inside a serial loop.
func TestOpenMPRegionInLoopRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_region_in_loop.c")
}

// TestOpenMPCallsInLoopsRun: calls (a recursion among them) in the loops
// of a parallel region, and a region in a function called in a serial
// loop (testdata/omp_calls_in_loops.c).
func TestOpenMPCallsInLoopsRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_calls_in_loops.c")
}

// TestOpenMPThreadNumRun: code that depends on omp_get_thread_num and
// omp_get_num_threads, and a master section.
func TestOpenMPThreadNumRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_thread_num.c")
}

// TestOpenMPSchedulesRun: dynamic, guided and chunked static schedules.
func TestOpenMPSchedulesRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_schedules.c")
}

// TestOpenMPSyncRun: a region in a called function with num_threads,
// single and master sections, barriers, nowait loops, a lock and a min
// reduction.
func TestOpenMPSyncRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_sync.c")
}

// TestOpenMPAliasingRun: two pointers into one array read by neighbouring
// iterations (no element is an iteration's own).
func TestOpenMPAliasingRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_aliasing.c")
}

// TestOpenMPOwnedElementsIR: in the reverse of a static worksharing loop
// reading only x[i], the adjoints go into dx[i] plainly (the iteration
// owns the element); where the loop also reads x[i + 1], or a second
// array, every adjoint into shared memory is atomic.
func TestOpenMPOwnedElementsIR(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/lib/llvm-14/lib/libomp.so"); err != nil {
		t.Skip("libomp-14-dev is not installed (make deps)")
	}
	const prelude = `
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double sin(double);
`
	cases := []struct {
		name, body, args string
		atomic           bool
	}{
		{"own", "y[i] = sin(x[i]) * x[i];", "", false},
		{"next", "y[i] = x[i] * x[(i + 1) % n];", "", true},
		{"two", "y[i] = x[i] * w[i];", "", true},
	}
	for _, c := range cases {
		src := prelude + `
void f(double *x, double *w, double *y, int n) {
	#pragma omp parallel for
	for (int i = 0; i < n; i++) ` + c.body + `
}
void g(double *x, double *dx, double *w, double *dw, double *y, double *dy, int n) {
	__enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, w, dw, enzyme_dup, y, dy, enzyme_const, n);
}`
		dir := t.TempDir()
		m := preAD(t, dir, compileBitcode(t, dir, "clang", "prog.c", src, "1", "-fopenmp"), "1")
		if _, err := Differentiate(m, Options{}); err != nil {
			t.Fatal(err)
		}
		atomic := false
		for _, f := range m.Funcs {
			if strings.HasPrefix(f.Name(), "__gozyme_rev_.omp_outlined") && strings.Contains(f.LLString(), "atomicrmw fadd") {
				atomic = true
			}
		}
		if atomic != c.atomic {
			t.Errorf("%s (%s): atomic adds in the reverse %v, want %v", c.name, c.body, atomic, c.atomic)
		}
	}
}

// TestOpenMPLeaks runs OpenMP gradients on 2 threads under valgrind: the
// team's tape array, each thread's tape and its shadows are freed, and no
// access is invalid. (libomp's own blocks from its initialization stay
// "possibly lost": only definite and indirect leaks count.)
func TestOpenMPLeaks(t *testing.T) {
	t.Parallel()
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		t.Skip("valgrind is not installed")
	}
	for _, name := range []string{"omp_reduction.c", "omp_critical.c", "omp_region_in_loop.c", "omp_firstprivate.c"} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(vg, "--quiet", "--leak-check=full", "--errors-for-leak-kinds=definite,indirect",
				"--error-exitcode=99", buildOpenMP(t, name, "2", true))
			cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=2")
			if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), "FAIL") {
				t.Fatalf("valgrind: %v\n%s", err, out)
			}
		})
	}
}

// TestOpenMPUnsupportedErrors: constructs without derivatives stop the
// differentiation with an error naming the construct and its line.
func TestOpenMPUnsupportedErrors(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/lib/llvm-14/lib/libomp.so"); err != nil {
		t.Skip("libomp-14-dev is not installed (make deps)")
	}
	const prelude = `extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
`
	cases := []struct{ name, body, want string }{ // want: "|"-separated parts of the error
		{"task", `
#pragma omp parallel
#pragma omp single
	{
#pragma omp task
		x[0] *= x[1];
	}`, "prog.c:7:1: cannot differentiate|OpenMP tasks"},
		{"ordered", `
#pragma omp parallel for ordered
	for (int i = 1; i < n; i++) {
#pragma omp ordered
		x[i] += x[i - 1];
	}`, "prog.c:6:1: cannot differentiate|OpenMP ordered regions"},
		{"atomic product", `
#pragma omp parallel for
	for (int i = 1; i < n; i++) {
#pragma omp atomic
		x[0] *= x[i];
	}`, "atomic compare-exchange on memory holding derivatives"},
		{"atomic capture", `
	double old = 0;
#pragma omp parallel for reduction(+:old)
	for (int i = 1; i < n; i++) {
		double v;
#pragma omp atomic capture
		{ v = x[0]; x[0] += x[i]; }
		old += v;
	}
	x[1] = old;`, "atomic compare-exchange on memory holding derivatives"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := prelude + "void f(double *x, int n) {" + c.body + "\n}\n" + `
void g(double *x, double *dx, int n) { __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n); }`
			for _, o := range []string{"0", "2"} {
				dir := t.TempDir()
				m := preAD(t, dir, compileBitcode(t, dir, "clang", "prog.c", src, o, "-fopenmp"), o)
				_, err := Differentiate(m, Options{})
				for _, want := range strings.Split(c.want, "|") {
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Errorf("-O%s: error %v, want one with %q", o, err, want)
					}
				}
			}
		})
	}
}

// TestOpenMPNestedRun: parallel loops inside a parallel loop, with two
// active levels.
func TestOpenMPNestedRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_nested.c")
}

// TestOpenMPScalarAliasRun: a shared scalar whose per-thread adjoint sum
// must be handed over before the reverse of a store to it through a
// pointer (one thread; see the program).
func TestOpenMPScalarAliasRun(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			serial := ompResults(t, runThreads(t, buildOpenMP(t, "omp_scalar_alias.c", o, false), 1))
			sameResults(t, "1 thread", ompResults(t, runThreads(t, buildOpenMP(t, "omp_scalar_alias.c", o, true), 1)), serial)
		})
	}
}

// TestOpenMPSectionsRun: parallel sections.
func TestOpenMPSectionsRun(t *testing.T) {
	t.Parallel()
	checkOpenMP(t, "omp_sections.c")
}
