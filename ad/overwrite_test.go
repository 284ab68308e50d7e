package ad

import (
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
)

// A table written by one loop and only read afterwards (by a loop nest), a
// free at the end and an lgamma call (which sets signgam, nothing the
// function reads): the nest re-loads t[k] in the reverse sweep instead of
// caching it per inner iteration, since no write can run after the load.
const tableIR = `
define double @table(double* %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %m = call noalias i8* @malloc(i64 %bytes)
  %t = bitcast i8* %m to double*
  br label %fill
fill:
  %i = phi i64 [ 0, %entry ], [ %i.next, %fill ]
  %xi.p = getelementptr inbounds double, double* %x, i64 %i
  %xi = load double, double* %xi.p, align 8
  %e = call double @llvm.exp.f64(double %xi)
  %ti.p = getelementptr inbounds double, double* %t, i64 %i
  store double %e, double* %ti.p, align 8
  %i.next = add nuw i64 %i, 1
  %ci = icmp ult i64 %i.next, %n
  br i1 %ci, label %fill, label %outer
outer:
  %j = phi i64 [ 0, %fill ], [ %j.next, %latch ]
  %s = phi double [ 0.0, %fill ], [ %s.inner, %latch ]
  %xj.p = getelementptr inbounds double, double* %x, i64 %j
  %xj = load double, double* %xj.p, align 8
  br label %inner
inner:
  %k = phi i64 [ 0, %outer ], [ %k.next, %inner ]
  %acc = phi double [ %s, %outer ], [ %acc.next, %inner ]
  %tk.p = getelementptr inbounds double, double* %t, i64 %k
  %tk = load double, double* %tk.p, align 8
  %p = fmul double %tk, %xj
  %acc.next = fadd double %acc, %p
  %k.next = add nuw i64 %k, 1
  %ck = icmp ult i64 %k.next, %n
  br i1 %ck, label %inner, label %latch
latch:
  %s.inner = phi double [ %acc.next, %inner ]
  %j.next = add nuw i64 %j, 1
  %cj = icmp ult i64 %j.next, %n
  br i1 %cj, label %outer, label %done
done:
  %lg = call double @lgamma(double 3.5)
  %r = fadd double %s.inner, %lg
  call void @free(i8* %m)
  ret double %r
}
declare noalias i8* @malloc(i64)
declare void @free(i8*)
declare double @llvm.exp.f64(double)
declare double @lgamma(double)
`

func TestReloadsNotOverwritten(t *testing.T) {
	t.Parallel()
	m := parseIR(t, tableIR)
	d := newDiffer(m, Options{})
	r, err := d.generateReverse(func() (*reverseGen, error) {
		return newReverseGen(d, m.Funcs[0], []activity.Activity{activity.Dup, activity.Const}, true, false, false, "grad_table")
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range r.cfg.Loops {
		if l.Header.Ident() != "%inner" {
			continue
		}
		for _, b := range requestedFields(r.loops[l]) {
			if b.elem.String() == "double" {
				t.Errorf("the inner loop caches a double per iteration; t[k] and x[j] are not overwritten after their loads")
			}
		}
	}
}

// The same shapes in C, run at every level: a table filled, read by a nest
// and freed, an lgamma term, and a local array written after it is read
// (whose loads must still be cached).
func TestReloadsNotOverwrittenRun(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "reloads_not_overwritten.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}
