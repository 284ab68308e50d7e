package ad

import (
	"strings"
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// A loop caching values of several types per iteration: the index k (an
// integer read from idx[i], which the loop clears) addresses x[k] in the
// reverse; x[i] (overwritten in the same iteration) and x[k] (overwritten
// by a later iteration when k > i) are the factors of the product.
const recordIR = `
define double @rec_ir(double* %x, i32* %idx, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %kp = getelementptr inbounds i32, i32* %idx, i64 %i
  %k = load i32, i32* %kp, align 4
  store i32 0, i32* %kp, align 4
  %k64 = sext i32 %k to i64
  %xkp = getelementptr inbounds double, double* %x, i64 %k64
  %xk = load double, double* %xkp, align 8
  %xip = getelementptr inbounds double, double* %x, i64 %i
  %v = load double, double* %xip, align 8
  %p = fmul double %v, %xk
  store double %p, double* %xip, align 8
  %s.next = fadd double %s, %p
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %s.next
}
`

// TestIterationRecord: the loop keeps one buffer of records (integer and
// floating fields together, ordered by alignment, largest first) grown by
// one realloc, combined and split.
func TestIterationRecord(t *testing.T) {
	eachReverse(t, recordIR, []Activity{Dup, Const, Const}, func(r *reverseGen, split bool) {
		lc := r.loops[r.cfg.Loops[0]]
		if lc.rec == nil {
			t.Errorf("split=%v: the loop caches nothing", split)
			return
		}
		ints, floats := 0, 0
		for _, f := range lc.rec.Fields {
			switch f.(type) {
			case *types.IntType:
				ints++
			case *types.FloatType:
				floats++
			}
		}
		if ints != 1 || floats != 2 || len(lc.rec.Fields) != 3 {
			t.Errorf("split=%v: record %s, want the index and two doubles", split, lc.rec)
		}
		last := int64(1 << 30)
		for _, f := range lc.rec.Fields {
			_, a, _ := abiLayout(f)
			if a > last {
				t.Errorf("split=%v: record %s is not ordered by alignment", split, lc.rec)
			}
			last = a
		}
		reallocs := 0
		for _, b := range r.g.Blocks {
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCall); ok && calleeName(c) == "realloc" {
					reallocs++
				}
			}
		}
		if reallocs != 1 {
			t.Errorf("split=%v: %d reallocs, want one for the loop's records", split, reallocs)
		}
	})
}

// eachReverse generates the gradient of the first function of IR src (its
// return active), combined and split, and hands each to check.
func eachReverse(t *testing.T, src string, acts []Activity, check func(r *reverseGen, split bool)) {
	t.Helper()
	for _, split := range []bool{false, true} {
		m := parseIR(t, src)
		d := newDiffer(m, Options{})
		r, err := d.generateReverse(func() (*reverseGen, error) {
			return newReverseGen(d, m.Funcs[0], acts, true, false, split, "grad_"+m.Funcs[0].Name())
		})
		if err != nil {
			t.Fatal(err)
		}
		check(r, split)
	}
}

// The gradient of rec_ir against central differences, called directly
// (one combined gradient, whose buffer is retained between calls: the
// second call reuses the first's) and through a caller (rec_ir split into
// an augmented forward and a reverse sharing the records on the tape).
func TestIterationRecordRun(t *testing.T) {
	src := memoryPrelude + `
double rec_ir(double *x, int *idx, long n);
enum { N = 7 };
static const int perm[N] = {3, 0, 6, 2, 2, 5, 1};
__attribute__((noinline)) double twice(double *x, int *idx, long n) {
	int again[N];
	memcpy(again, idx, sizeof again);
	return rec_ir(x, idx, n) * rec_ir(x, again, n);
}
/* on_copy: g on copies of x and perm (fdcheck needs x left alone). */
static double on_copy(double (*g)(double *, int *, long), double *x, int n) {
	double y[N];
	int idx[N];
	memcpy(y, x, sizeof y);
	memcpy(idx, perm, sizeof idx);
	return g(y, idx, n);
}
static double direct(double *x, int n) { return on_copy(rec_ir, x, n); }
static double caller(double *x, int n) { return on_copy(twice, x, n); }
/* RECCHECK(f, root): the gradient of root, called twice, against central differences of f. */
#define RECCHECK(f, root) do { \
		double x[N]; \
		for (int i = 0; i < N; i++) x[i] = 0.7 + 0.11 * i; \
		for (int call = 0; call < 2; call++) { \
			double xc[N], dx[N] = {0}; \
			int idx[N]; \
			memcpy(xc, x, sizeof x); \
			memcpy(idx, perm, sizeof idx); \
			__enzyme_autodiff((void *)root, enzyme_dup, xc, dx, enzyme_const, idx, enzyme_const, (long)N); \
			fdcheck(#root, f, x, N, dx); \
		} \
	} while (0)
int main(void) {
	RECCHECK(direct, rec_ir);
	RECCHECK(caller, twice);
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildCWithIR(t, src, recordIR, o))
			if strings.Count(out, "ok twice[6]") != 2 {
				t.Errorf("missing checks:\n%s", out)
			}
		})
	}
}
