package ad

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
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
func particleC(t *testing.T) string {
	t.Helper()
	return memoryPrelude + testdataC(t, "particle.c")
}

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
	t.Parallel()
	const n = 32
	src := particleC(t) + fmt.Sprintf(`
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
	t.Parallel()
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
				return newReverseGen(d, f, []activity.Activity{activity.Dup, activity.Const}, true, false, false, "grad_pairs")
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
	t.Parallel()
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
