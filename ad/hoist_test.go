package ad

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// particleC is a particle system (forces from p[j] on p[i], then a
// position update) and two variants that must keep their per-iteration
// caches: one writing p[i].x inside the i loop (the p[j].x it loads
// changes from one i to the next) and one whose inner loop starts at i (a
// triangle: the same j iteration number reads another particle for each i);
// and two hoisted otherwise: p[j] under an intermediate loop, and x[0]
// loaded in every iteration of a loop and overwritten after it.
// CHECK_PARTICLES compares each gradient with central differences and
// prints the heap the gradient keeps after a call: its cache buffers, which
// combined gradients retain (retain.go).
const particleC = memoryPrelude + `
#include <malloc.h>
typedef struct { double x, y, vx, vy; int kind; } Particle;

__attribute__((noinline)) double particles(Particle *p, int n) {
	for (int s = 0; s < 4; s++) {
		for (int i = 0; i < n; i++) {
			double fx = 0, fy = 0;
			for (int j = 0; j < n; j++) {
				if (i == j) continue;
				double dx = p[j].x - p[i].x, dy = p[j].y - p[i].y;
				double r2 = dx * dx + dy * dy + 0.5;
				double f = (p[i].kind == p[j].kind ? 1.0 : -1.0) / (r2 * sqrt(r2));
				fx += f * dx;
				fy += f * dy;
			}
			p[i].vx += 0.01 * fx;
			p[i].vy += 0.01 * fy;
		}
		for (int i = 0; i < n; i++) { p[i].x += 0.1 * p[i].vx; p[i].y += 0.1 * p[i].vy; }
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].vx + p[i].vy * p[i].vy + p[i].x * p[i].y;
	return e;
}

/* p[i].x is written inside the i loop: p[j].x differs between i iterations. */
__attribute__((noinline)) double overlapping(Particle *p, int n) {
	for (int s = 0; s < 3; s++)
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = 0; j < n; j++) f += sin(p[j].x - p[i].y) * p[j].vy;
			p[i].x += 0.1 * f;
		}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].x * p[i].x + p[i].y;
	return e;
}

/* The inner loop starts at i: its k-th iteration reads p[i + k]. */
__attribute__((noinline)) double triangular(Particle *p, int n) {
	for (int s = 0; s < 3; s++) {
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int j = i; j < n; j++) f += cos(p[j].x * p[i].y);
			p[i].vx += 0.1 * f;
		}
		for (int i = 0; i < n; i++) p[i].x += 0.1 * p[i].vx;
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].x;
	return e;
}

static size_t heap(void) { struct mallinfo2 m = mallinfo2(); return m.uordblks + m.hblkhd; }

/* CHECK_PARTICLES(f, n): the gradient of f against central differences,
 * and the heap it keeps (its retained caches), printed as "tape f BYTES". */
#define CHECK_PARTICLES(f, n) do { \
		Particle w[64], d[64]; \
		init(n); \
		memcpy(w, P, sizeof P); \
		memset(d, 0, sizeof d); \
		size_t before = heap(); \
		__enzyme_autodiff((void *)f, enzyme_dup, w, d, enzyme_const, n); \
		printf("tape %s %zu\\n", #f, heap() - before); \
		fdparticles(#f, f, n, d); \
	} while (0)
/* An intermediate loop: p[j] is the same in every i iteration for the
 * same (k, j). */
__attribute__((noinline)) double blocked(Particle *p, int n) {
	for (int s = 0; s < 3; s++) {
		for (int i = 0; i < n; i++) {
			double f = 0;
			for (int k = 0; k < 2; k++)
				for (int j = 0; j < n; j++) f += sin(p[j].x * (k + 1) - p[i].y) * p[j].y;
			p[i].vx += 0.1 * f;
		}
		for (int i = 0; i < n; i++) { p[i].x += 0.1 * p[i].vx; p[i].y -= 0.05 * p[i].vx; }
	}
	double e = 0;
	for (int i = 0; i < n; i++) e += p[i].vx * p[i].x + p[i].y;
	return e;
}

/* x[0] is the same in every iteration of the loop and overwritten after it:
 * one cache for the whole loop. */
__attribute__((noinline)) double anchored(double *x, int n) {
	double s = 0;
	for (int j = 1; j < n; j++) s += sin(x[0] * x[j]);
	x[0] = s * x[1];
	for (int j = 1; j < n; j++) x[j] = cos(x[j] + x[0]);
	return x[0] + x[n - 1];
}
static double anchored_copy(double *x, int n) { double y[16]; memcpy(y, x, n * sizeof *x); return anchored(y, n); }

/* The same functions as callees: split into an augmented forward and a
 * reverse that share a tape. */
#define CALLEE(f) __attribute__((noinline)) double f##_callee(Particle *p, int n) { return 2 * f(p, n); }
CALLEE(particles)
CALLEE(overlapping)
CALLEE(triangular)
CALLEE(blocked)

static Particle P[64];
static void init(int n) {
	for (int i = 0; i < n; i++) P[i] = (Particle){cos(i * 1.7) * 3, sin(i * 2.3) * 3, 0.1 * sin(i), 0.2 * cos(i), i % 2};
}
static void fdparticles(const char *name, double (*f)(Particle *, int), int n, Particle *d) {
	Particle w[64];
	for (int i = 0; i < n; i++) {
		double *fld[4] = {&P[i].x, &P[i].y, &P[i].vx, &P[i].vy}, *dfld[4] = {&d[i].x, &d[i].y, &d[i].vx, &d[i].vy};
		for (int k = 0; k < 4; k++) {
			double save = *fld[k], h = 1e-6;
			*fld[k] = save + h; memcpy(w, P, sizeof P); double fp = f(w, n);
			*fld[k] = save - h; memcpy(w, P, sizeof P); double fm = f(w, n);
			*fld[k] = save;
			char what[64]; snprintf(what, sizeof what, "%s p[%d].%d", name, i, k);
			check(what, *dfld[k], (fp - fm) / (2 * h), 1e-5);
		}
	}
}
`

// tapeOf reads the "tape NAME BYTES" line of a particle test's output.
func tapeOf(t *testing.T, out, name string) int {
	t.Helper()
	m := regexp.MustCompile(`tape ` + name + ` (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no tape line for %s in %q", name, out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// The particle system's gradient is right at every level, and its tape is
// about what it overwrites: 4 steps × n particles × 4 doubles, not the
// n² pairs (p[j] is cached per step and j, p[i] per step and i). The
// variants whose loads do change with i stay right.
func TestHoistedParticles(t *testing.T) {
	const n = 32
	src := particleC + fmt.Sprintf(`
int main(void) {
	CHECK_PARTICLES(particles, %d);
	CHECK_PARTICLES(overlapping, 12);
	CHECK_PARTICLES(triangular, 12);
	CHECK_PARTICLES(blocked, 12);
	CHECK_PARTICLES(particles_callee, 12);
	CHECK_PARTICLES(overlapping_callee, 12);
	CHECK_PARTICLES(triangular_callee, 12);
	CHECK_PARTICLES(blocked_callee, 12);
	enum { N = 9 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
	double xc[N], dx[N] = {0};
	memcpy(xc, x, sizeof x);
	__enzyme_autodiff((void *)anchored, enzyme_dup, xc, dx, enzyme_const, N);
	fdcheck("anchored", anchored_copy, x, N, dx);
	return failures != 0;
}
`, n)
	overwritten := 4 * n * 4 * 8
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			tape := tapeOf(t, out, "particles")
			t.Logf("particles(n=%d) tape %d B, overwritten %d B", n, tape, overwritten)
			// Per pair, the loads alone would take 4·n²·16 B = 64 KiB.
			if tape > 2*overwritten {
				t.Errorf("-O%s: tape %d B, more than twice the %d B the function overwrites", o, tape, overwritten)
			}
		})
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// pairsIR is the particle shape by hand: p[j].x loaded in the j loop, a
// field of p[i] updated after it in the i loop, positions in a loop of
// their own in each step. STORE is the field the i loop writes, START the
// j loop's first iteration.
const pairsIR = `
%P = type { double, double, double, double, i32 }
define double @pairs(%P* %p, i64 %n) {
entry:
  br label %step
step:
  %s = phi i64 [ 0, %entry ], [ %s.next, %step.latch ]
  br label %outer
outer:
  %i = phi i64 [ 0, %step ], [ %i.next, %outer.latch ]
  %pix = getelementptr inbounds %P, %P* %p, i64 %i, i32 1
  %xi = load double, double* %pix, align 8
  br label %inner
inner:
  %j = phi i64 [ START, %outer ], [ %j.next, %inner ]
  %acc = phi double [ 0.0, %outer ], [ %acc.next, %inner ]
  %pjx = getelementptr inbounds %P, %P* %p, i64 %j, i32 0
  %xj = load double, double* %pjx, align 8
  %dx = fsub double %xj, %xi
  %sq = fmul double %dx, %dx
  %acc.next = fadd double %acc, %sq
  %j.next = add nuw i64 %j, 1
  %cj = icmp ult i64 %j.next, %n
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %pf = getelementptr inbounds %P, %P* %p, i64 %i, i32 STORE
  %f = load double, double* %pf, align 8
  %f.new = fadd double %f, %acc.next
  store double %f.new, double* %pf, align 8
  %i.next = add nuw i64 %i, 1
  %ci = icmp ult i64 %i.next, %n
  br i1 %ci, label %outer, label %update
update:
  %k = phi i64 [ 0, %outer.latch ], [ %k.next, %update ]
  %pkx = getelementptr inbounds %P, %P* %p, i64 %k, i32 0
  %pkv = getelementptr inbounds %P, %P* %p, i64 %k, i32 2
  %xk = load double, double* %pkx, align 8
  %vk = load double, double* %pkv, align 8
  %xk.new = fmul double %xk, %vk
  store double %xk.new, double* %pkx, align 8
  %k.next = add nuw i64 %k, 1
  %ck = icmp ult i64 %k.next, %n
  br i1 %ck, label %update, label %step.latch
step.latch:
  %s.next = add nuw i64 %s, 1
  %cs = icmp ult i64 %s.next, 3
  br i1 %cs, label %step, label %done
done:
  %p0 = getelementptr inbounds %P, %P* %p, i64 0, i32 2
  %r = load double, double* %p0, align 8
  ret double %r
}
`

// The analysis on pairsIR: p[j].x is the same in every iteration of the i
// loop, and is cached per j there, when the i loop writes another field
// (vx); not when it writes x itself, nor when the j loop starts at i.
func TestHoistLoopIR(t *testing.T) {
	for _, tc := range []struct {
		name, store, start, want string
	}{
		{"disjoint", "2", "0", "%outer"},
		{"overlapping", "0", "0", ""},
		{"triangular", "2", "%i", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := parseIR(t, strings.NewReplacer("STORE", tc.store, "START", tc.start).Replace(pairsIR))
			d := newDiffer(m, Options{})
			f := m.Funcs[0]
			r, err := d.generateReverse(func() (*reverseGen, error) {
				return newReverseGen(d, f, []Activity{Dup, Const}, true, false, false, "grad_pairs")
			})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if x := r.hoistLoop(findValue(f, "xj")); x != nil {
				got = x.Header.Ident()
			}
			if got != tc.want {
				t.Fatalf("p[j].x is cached without the dimension of loop %q, want %q", got, tc.want)
			}
			var hoisted []string
			for _, h := range r.hoists {
				for _, b := range requestedFields(h.lc) {
					hoisted = append(hoisted, h.over.Header.Ident()+":"+b.elem.String())
				}
			}
			switch {
			case tc.want != "" && (len(hoisted) != 1 || hoisted[0] != "%outer:double"):
				t.Errorf("hoisted buffers %v, want p[j].x's double without the i loop", hoisted)
			case tc.want == "" && len(hoisted) != 0:
				t.Errorf("hoisted buffers %v, want none", hoisted)
			}
		})
	}
}

// The tie-break of library calls (mincut.go, libmRecomputeBytes): an
// in-place x[i] = sin(x[i])·x[i] caches the x[i] it overwrites and calls
// sin again in the reverse, so its tape is what it overwrites; a recurrent
// h = tanh(W·h) caches tanh's results (its derivative needs them) and never
// calls tanh in the reverse sweep.
func TestLibmTieBreak(t *testing.T) {
	src := memoryPrelude + testdataC(t, "libm_tie_break.c")
	overwritten := 20 * 100 * 8
	tanhCall := regexp.MustCompile(`call [^\n]*@tanh\(`)
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			exe := buildC(t, src, o)
			out := run(t, exe)
			tape := tapeOf(t, out, "inplace")
			t.Logf("inplace(n=100, 20 steps) tape %d B, overwritten %d B", tape, overwritten)
			if tape > overwritten*5/4 {
				t.Errorf("-O%s: in-place sin loop keeps %d B of tape, want about the %d B it overwrites", o, tape, overwritten)
			}
			ll, err := os.ReadFile(filepath.Join(filepath.Dir(exe), "ad.ll"))
			if err != nil {
				t.Fatal(err)
			}
			primal, grad := funcBody(string(ll), "@rnn("), funcBody(string(ll), "grad_rnn_")
			if p, g := len(tanhCall.FindAllString(primal, -1)), len(tanhCall.FindAllString(grad, -1)); p == 0 || g != p {
				t.Errorf("-O%s: the gradient of rnn calls tanh at %d places, the primal at %d: the reverse sweep should not call it", o, g, p)
			}
		})
	}
}

// funcBody returns the text of the first function definition in ll whose
// define line contains name (the gradient: "__gozyme_grad_" and name).
func funcBody(ll, name string) string {
	for _, part := range strings.Split(ll, "\ndefine ")[1:] {
		head := part[:strings.Index(part, "\n")]
		if name == "@rnn(" && strings.Contains(head, name) || name != "@rnn(" && strings.Contains(head, "grad") && strings.Contains(head, name) {
			return part[:strings.Index(part, "\n}")]
		}
	}
	return ""
}
