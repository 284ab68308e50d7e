package ad

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/irutil"
)

// Shapes of loops entered, in each iteration of the loop around them,
// past branches that do not dominate them (entryPaths): where they grow
// their records, and their gradients under valgrind, where a wrong
// decision of whether they run would overflow or trap. The cases were
// written against another formulation of the same rule (a path formula)
// and check entryPaths independently of it.

// pathIR is @name(x, n, a, b): an outer loop over x[0..n) whose
// iterations run body, blocks ending in branches to %pre (on into the
// inner loop) or %latch, on conditions computed before the outer loop:
// %c = a > 0, %big = b > 2, %pos = b > 0. The inner loop runs j from 0
// while j + 1 < lim, b with its sign bit cleared: every way into it knows
// b > 0 (lim = b), and its exact count is meaningless elsewhere (2^63 - 2
// at b = -2, growth on entry asking for that many records traps).
// Each iteration accumulates
// sin(x[j] x[i]) and x[i] shrinks in the latch, so the loop caches its
// products: a record per iteration, n b of them per call at most.
func pathIR(name, body string) string {
	return strings.NewReplacer("NAME", name, "BODY", strings.TrimSpace(body)).Replace(`
define double @NAME(double* %x, i64 %n, i64 %a, i64 %b) {
entry:
  %sp = alloca double, align 8
  store double 0.0, double* %sp, align 8
  %c = icmp sgt i64 %a, 0
  %big = icmp sgt i64 %b, 2
  %pos = icmp sgt i64 %b, 0
  %b2 = shl i64 %b, 1
  %lim = lshr i64 %b2, 1
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %xip = getelementptr inbounds double, double* %x, i64 %i
  %xi = load double, double* %xip, align 8
  BODY
pre:
  br label %loop
loop:
  %j = phi i64 [ 0, %pre ], [ %j.next, %loop ]
  %xjp = getelementptr inbounds double, double* %x, i64 %j
  %xj = load double, double* %xjp, align 8
  %p = fmul double %xj, %xi
  %e = call double @llvm.sin.f64(double %p)
  %s0 = load double, double* %sp, align 8
  %s1 = fadd double %s0, %e
  store double %s1, double* %sp, align 8
  %j.next = add nuw nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, %lim
  br i1 %cj, label %loop, label %latch
latch:
  %xin = fmul double %xi, 0.9
  store double %xin, double* %xip, align 8
  %i.next = add nsw i64 %i, 1
  %ci = icmp slt i64 %i.next, %n
  br i1 %ci, label %outer, label %exit
exit:
  %r = load double, double* %sp, align 8
  ret double %r
}
`)
}

// sibIR is a loop inside the outer loop, next to the inner one: k from 0
// while k + 1 != a (entered only where a > 0), accumulating cos(x[k]
// x[i]), left for %mid; with early set, also for %latch where a sum
// turns negative (two exit targets).
func sibIR(early bool) string {
	back, exit := "%sib", "br i1 %ck, label %mid, label %sib"
	if early {
		back, exit = "%sib.more", "br i1 %ck, label %mid, label %sib.more\nsib.more:\n  %neg = fcmp olt double %t1, -1.0e9\n  br i1 %neg, label %latch, label %sib"
	}
	return `
sib:
  %k = phi i64 [ 0, %outer ], [ %k.next, ` + back + ` ]
  %xkp = getelementptr inbounds double, double* %x, i64 %k
  %xk = load double, double* %xkp, align 8
  %q = fmul double %xk, %xi
  %f = call double @llvm.cos.f64(double %q)
  %t0 = load double, double* %sp, align 8
  %t1 = fadd double %t0, %f
  store double %t1, double* %sp, align 8
  %k.next = add nuw nsw i64 %k, 1
  %ck = icmp eq i64 %k.next, %a
  ` + exit
}

// pathCase is one shape of pathIR and where its inner loop grows its
// records: the header of the loop it grows on entry to ("loop": its own).
type pathCase struct {
	name, body string
	top        string
}

var pathCases = []pathCase{
	// Two branches on the way, both dominating the loop: a plain AND.
	{"onearm", `
  br i1 %c, label %left, label %latch
left:
  br i1 %big, label %pre, label %latch`, "outer"},
	// A diamond rejoining before the loop's guard: its branch drops out.
	{"rejoin", `
  br i1 %c, label %left, label %right
left:
  %xl = fmul double %xi, 1.5
  br label %join
right:
  %xr = fmul double %xi, 0.5
  br label %join
join:
  %xm = phi double [ %xl, %left ], [ %xr, %right ]
  store double %xm, double* %xip, align 8
  br i1 %big, label %pre, label %latch`, "outer"},
	// Two paths with different guards, neither dominating the loop.
	{"twopaths", `
  br i1 %c, label %left, label %right
left:
  br i1 %big, label %pre, label %latch
right:
  br i1 %pos, label %pre, label %latch`, "outer"},
	// The same with one guard computed in the outer loop: not hoisted.
	{"variant", `
  br i1 %c, label %left, label %right
left:
  br i1 %big, label %pre, label %latch
right:
  %posi = icmp slt i64 %i, %b
  br i1 %posi, label %pre, label %latch`, "loop"},
	// A sibling loop on one of two paths, passed whole to its exit.
	{"sibling", `
  br i1 %c, label %sib, label %right
` + sibIR(false) + `
right:
  br i1 %big, label %mid, label %latch
mid:
  br i1 %pos, label %pre, label %latch`, "outer"},
	// The sibling loop leaves for two blocks: its exit decides the way
	// on, on data.
	{"twoexits", `
  br i1 %c, label %sib, label %right
` + sibIR(true) + `
right:
  br i1 %big, label %mid, label %latch
mid:
  br i1 %pos, label %pre, label %latch`, "loop"},
}

// pathModule is every pathCase's function in one module.
func pathModule() string {
	var b strings.Builder
	for _, c := range pathCases {
		b.WriteString(pathIR("path_"+c.name, c.body))
	}
	b.WriteString("declare double @llvm.sin.f64(double)\ndeclare double @llvm.cos.f64(double)\n")
	return b.String()
}

// TestEntryPathIR: where the inner loop of each pathCase grows its records.
func TestEntryPathIR(t *testing.T) {
	t.Parallel()
	for _, tc := range pathCases {
		src := pathIR("path_"+tc.name, tc.body) + "declare double @llvm.sin.f64(double)\ndeclare double @llvm.cos.f64(double)\n"
		eachReverse(t, src, []activity.Activity{activity.Dup, activity.Const, activity.Const, activity.Const}, func(r *reverseGen, split bool) {
			for _, l := range r.cfg.Loops {
				if l.Header.Name() != "loop" {
					continue
				}
				if r.loops[l].rec == nil {
					t.Fatalf("%s split=%v: the inner loop caches nothing", tc.name, split)
				}
				top, _, ok := r.entryGrowth(l)
				got := "none"
				if ok {
					got = top.Header.Name()
				}
				if got != tc.top {
					t.Errorf("%s split=%v: the inner loop grows on entry to %s, want %s", tc.name, split, got, tc.top)
				}
			}
		})
	}
}

// TestEntryPathRun: the gradients of every pathCase against central
// differences at sizes taking every path (a, b) = (-1 or 1, -2..6),
// under valgrind at -O0 (the shapes as written, mem2reg only) and run at
// -O2: a formula saying "not entered" where the loop is would leave the
// records without room (valgrind's invalid writes), one saying "entered"
// where it is not would count b <= 0 iterations (a trap).
func TestEntryPathRun(t *testing.T) {
	t.Parallel()
	var decl, main strings.Builder
	for _, c := range pathCases {
		fmt.Fprintf(&decl, "double path_%s(double *x, long n, long a, long b);\n", c.name)
		fmt.Fprintf(&decl, "static double path_%s_n(double *x, int n) { double y[N]; memcpy(y, x, n * sizeof *x); return path_%s(y, n, A, B); }\n", c.name, c.name)
		fmt.Fprintf(&main, "\t\tRUN(path_%s);\n", c.name)
	}
	src := memoryPrelude + `
enum { N = 7 };
static long A, B;
` + decl.String() + `
#define RUN(f) do { \
		double xc[N], dx[N] = {0}; \
		memcpy(xc, x, sizeof x); \
		__enzyme_autodiff((void *)f, enzyme_dup, xc, dx, enzyme_const, (long)N, enzyme_const, A, enzyme_const, B); \
		char name[32]; \
		snprintf(name, sizeof name, "%s_a%ld_b%ld", #f, A, B); \
		fdcheck(name, f##_n, x, N, dx); \
	} while (0)
int main(void) {
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
	static const long as[] = {-1, 1}, bs[] = {-2, 0, 1, 2, 3, 4, 6};
	for (int k = 0; k < 14; k++) {
		A = as[k / 7], B = bs[k % 7];
` + main.String() + `	}
	return failures != 0;
}
`
	ll := pathModule()
	for _, o := range []string{"0", "2"} {
		t.Run("O"+o, func(t *testing.T) {
			exe := buildCWithIR(t, src, ll, o)
			var out string
			if o == "0" {
				out = runLeakChecked(t, exe)
			} else {
				out = run(t, exe)
			}
			for _, c := range pathCases {
				for _, w := range []string{"_a-1_b-2[6]", "_a1_b0[6]", "_a1_b3[6]", "_a-1_b6[6]", "_a1_b6[6]"} {
					if want := "ok path_" + c.name + w; !strings.Contains(out, want) {
						t.Errorf("missing %s", want)
					}
				}
			}
		})
	}
}

// qformKernel is GMM's shape: per point i < P and component k < K (2
// each, set at run time: not unrolled), xc = p - mu,
// qx = q xc (caching xc, which the next pair overwrites) and the squared
// norm of qx, over d = D components. Vectorized, the qx loop's scalar
// remainder is entered from the vector loop's middle block (n.vec != d)
// or where the minimum-iterations check skips the vector loop.
func qformKernel(t *testing.T) string {
	t.Helper()
	return testdataC(t, "qform_kernel.c")
}

// TestEntryPathQformIR: at -O2, qform's vectorized qx loop leaves a
// scalar remainder entered two ways, neither branch dominating it; it
// grows its records on entry to a loop around it, decided over the paths,
// on conditions computed outside that loop.
func TestEntryPathQformIR(t *testing.T) {
	t.Parallel()
	m := preADModuleC(t, "#include <math.h>\n"+qformKernel(t)+"int main(int argc, char **argv) { D = argc, P = K = argc + 1; double x[64] = {0}; return qform(x, 6 * argc + 1) > 1; }\n", "2")
	d, r := reverseOf(t, m, "qform", false, "qform_paths")
	defer d.dropFunc(r.g)
	found := false
	for _, l := range r.cfg.Loops {
		if r.loops[l].rec == nil {
			continue
		}
		top, chain, ok := r.entryGrowth(l)
		if !ok || top == l {
			continue
		}
		for _, g := range chain[0].guards {
			if g.paths != nil {
				found = true
			}
			for _, c := range g.conds() {
				if r.primal().DefinedIn(top, c) {
					t.Errorf("loop %s: its entry reads %s, computed in the loop at %s", l.Header.Ident(), c.Ident(), top.Header.Ident())
				}
			}
		}
	}
	if !found {
		t.Error("no loop grows its records on entry to a loop around it, decided over several paths")
	}
}

// TestEntryPathQformRun: qform's gradient against central differences, at
// every level, under valgrind from -O1 on, at d = -1..9: the vector
// loop's minimum iterations (4) missed at d < 4, met exactly (n.vec = d,
// no remainder) at 4 and 8, with a remainder at 5, 7 and 9.
func TestEntryPathQformRun(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + qformKernel(t) + testdataC(t, "entry_path_qform.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			exe := buildC(t, src, o)
			var out string
			if o == "0" {
				out = run(t, exe)
			} else {
				out = runLeakChecked(t, exe)
			}
			for _, want := range []string{"done d=9", "ok qform[54]", "ok qform_callee[54]"} {
				if !strings.Contains(out, want) {
					t.Errorf("missing %s", want)
				}
			}
		})
	}
}

// TestEntryFormulaSimplify: or's simplification keeps a formula's value
// under every assignment (random ORs of random terms over four
// conditions), and reaches the shortest forms of the shapes it is for.

// TestEntryPathsIR: remIR's remainder is entered past mid's branch, which
// does not dominate it: its factor's guard is the decision over the
// outer loop's paths, testing %small and %full (entryPaths). Where %full
// is computed in the outer loop, the paths are not known on entry to it,
// and the remainder grows on its own entry.
func TestEntryPathsIR(t *testing.T) {
	t.Parallel()
	inLoop := strings.Replace(strings.Replace(remIR, "  %full = icmp eq i64 %nvec, %d\n", "", 1),
		"  br i1 %full, label %latch", "  %full = icmp eq i64 %nvec, %i\n  br i1 %full, label %latch", 1)
	for _, tc := range []struct {
		name, src, top string
		conds          []string
	}{
		{"invariant", remIR, "outer", []string{"%full", "%small"}},
		{"cmp.n in the loop", inLoop, "rem", nil},
	} {
		eachReverse(t, tc.src, []activity.Activity{activity.Dup, activity.Const, activity.Const}, func(r *reverseGen, split bool) {
			rem := r.cfg.LoopOf[r.blockOf[findValue(r.f, "j")]]
			top, chain, ok := r.entryGrowth(rem)
			if !ok || top.Header.Name() != tc.top {
				t.Fatalf("%s split=%v: the remainder grows on entry to %v (%v), want %s", tc.name, split, top, ok, tc.top)
			}
			if tc.conds == nil {
				return
			}
			var got []string
			for _, g := range chain[0].guards {
				if g.paths == nil {
					t.Errorf("%s split=%v: guard %s is a single branch", tc.name, split, g.cond.Ident())
				}
				for _, c := range g.conds() {
					got = append(got, c.Ident())
				}
			}
			sort.Strings(got)
			if strings.Join(got, " ") != strings.Join(tc.conds, " ") {
				t.Errorf("%s split=%v: the remainder's entry tests %v, want %v", tc.name, split, got, tc.conds)
			}
		})
	}
}

// TestEntryPathsGMMIR: at -O2 and -O3, iterNests' loops copying xc[j]
// into q (GMM's qx loop: a vector loop and a remainder that caches xc[j])
// grow on entry to the component loop or further out, the remainder under
// a decision over paths.
func TestEntryPathsGMMIR(t *testing.T) {
	t.Parallel()
	for _, o := range []string{"2", "3"} {
		m := preADModuleC(t, iterNests(t), o)
		d, r := reverseOf(t, m, "trirun", false, "paths_trirun")
		byPaths := 0
		grownAround(r, func(l, top *irutil.Loop, chain []countFactor) {
			for _, g := range chain[0].guards {
				if g.paths != nil {
					byPaths++
				}
			}
		})
		if byPaths == 0 {
			t.Errorf("-O%s: no loop of trirun grows on entry to a loop around it under a decision over paths", o)
		}
		d.dropFunc(r.g)
	}
}

// TestEntryPathsRun: with the remainders growing on entry to the nest,
// iterNests run clean under valgrind (no record written past its buffer,
// none leaked) where the vector loops run alone (d = 4, 8: the remainder
// skipped by cmp.n), with their remainders (5, 7) and not at all (1), and
// their gradients match central differences.
func TestEntryPathsRun(t *testing.T) {
	t.Parallel()
	for _, o := range []string{"2", "3"} {
		t.Run("O"+o, func(t *testing.T) {
			exe := buildC(t, iterNests(t), o)
			for _, dim := range []string{"1", "4", "5", "7", "8"} {
				out := runLeakCheckedEnv(t, exe, "DIM="+dim)
				for _, want := range iterWants {
					if !strings.Contains(out, want) {
						t.Errorf("-O%s DIM=%s: no %q in\n%s", o, dim, want, out)
					}
				}
			}
		})
	}
}

// grownAround calls f for each loop of r with records that grows them on
// entry to a loop around it, top, with the trip counts of chain.
func grownAround(r *reverseGen, f func(l, top *irutil.Loop, chain []countFactor)) {
	for _, l := range r.cfg.Loops {
		if r.loops[l].rec == nil {
			continue
		}
		if top, chain, ok := r.entryGrowth(l); ok && top != l {
			f(l, top, chain)
		}
	}
}

// TestEntryPathNestsRun: testdata/entry_path_nests.c's gradients (iterNests'
// shape with != copies counting down, an inner count d - 3 and inner loops
// past non-dominating branches on values invariant in the nest) against
// central differences at every level with d = 0..9 (vector loops skipped,
// alone, with their remainders; m = d - 3 negative), under valgrind at
// -O2.
func TestEntryPathNestsRun(t *testing.T) {
	t.Parallel()
	src := loopRunPrelude + testdataC(t, "entry_path_nests.c")
	wants := []string{"ok down_nest[63]", "ok neg_nest[63]", "ok down_nest_callee[63]", "ok neg_nest_callee[63]"}
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			exe := buildC(t, src, o)
			for _, dim := range []string{"0", "1", "2", "3", "4", "5", "7", "8", "9"} {
				var out string
				if o == "2" {
					out = runLeakCheckedEnv(t, exe, "DIM="+dim)
				} else {
					out = runEnv(t, exe, "DIM="+dim)
				}
				checkWants(t, out, "-O"+o+" DIM="+dim, wants)
			}
		})
	}
}
