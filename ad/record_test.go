package ad

import (
	"github.com/gozyme/gozyme/ad/activity"
	"github.com/gozyme/gozyme/ad/irfacts"
	"strings"
	"testing"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
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
	t.Parallel()
	eachReverse(t, recordIR, []activity.Activity{activity.Dup, activity.Const, activity.Const}, func(r *reverseGen, split bool) {
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
				if c, ok := inst.(*ir.InstCall); ok && irfacts.CalleeName(c) == "realloc" {
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
func eachReverse(t *testing.T, src string, acts []activity.Activity, check func(r *reverseGen, split bool)) {
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
	t.Parallel()
	src := memoryPrelude + testdataC(t, "iteration_record.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildCWithIR(t, src, recordIR, o))
			if strings.Count(out, "ok twice[6]") != 2 {
				t.Errorf("missing checks:\n%s", out)
			}
		})
	}
}

// TestFieldAddrAfterLayout: a record requested as {i8, i32, double} is laid
// out {double, i32, i8}; addresses of its fields made before recordLayout
// are renumbered, and those made after it address the moved fields too
// (each index names a field of the accessed value's type).
func TestFieldAddrAfterLayout(t *testing.T) {
	t.Parallel()
	elems := []types.Type{types.I8, types.I32, types.Double}
	lc := &loopCache{rec: types.NewStruct(), fields: map[value.Value]*loopBuf{}}
	var bufs []*loopBuf
	for i, e := range elems {
		b := &loopBuf{field: i, elem: e}
		lc.rec.Fields = append(lc.rec.Fields, e)
		lc.fields[ir.NewParam("", e)] = b
		bufs = append(bufs, b)
	}
	r := &reverseGen{}
	base := ir.NewParam("base", types.NewPointer(lc.rec))
	idx := constant.NewInt(types.I64, 3)
	check := func(when string, b *loopBuf, gep *ir.InstGetElementPtr) {
		t.Helper()
		k := gep.Indices[1].(*constant.Int).X.Int64()
		if got := lc.rec.Fields[k]; !got.Equal(b.elem) {
			t.Errorf("%s: the %s field is addressed at index %d, a %s in %s", when, b.elem, k, got, lc.rec)
		}
	}
	before := make([]*ir.InstGetElementPtr, len(bufs))
	for i, b := range bufs {
		before[i] = r.fieldAddr(lc, base, idx, b)
	}
	recordLayout(lc)
	if !lc.rec.Fields[0].Equal(types.Double) || !lc.rec.Fields[2].Equal(types.I8) {
		t.Fatalf("layout %s, want the double first and the i8 last", lc.rec)
	}
	for i, b := range bufs {
		check("made before layout", b, before[i])
		check("made after layout", b, r.fieldAddr(lc, base, idx, b))
	}
}

// TestSharedRecordLayout: owner o has an i8 field, its sharer n (as
// recordField joins them) an i32 and a double. After recordLayout(o), n's
// fields name their new indices, not only the owner's.
func TestSharedRecordLayout(t *testing.T) {
	t.Parallel()
	o := &loopCache{rec: types.NewStruct(), fields: map[value.Value]*loopBuf{}}
	n := &loopCache{owner: o, rec: o.rec, fields: map[value.Value]*loopBuf{}}
	o.sharers = []*loopCache{n}
	add := func(lc *loopCache, e types.Type) *loopBuf {
		b := &loopBuf{field: len(o.rec.Fields), elem: e}
		o.rec.Fields = append(o.rec.Fields, e)
		lc.fields[ir.NewParam("", e)] = b
		return b
	}
	add(o, types.I8)
	bi := add(n, types.I32)
	bd := add(n, types.Double)
	r := &reverseGen{}
	base := ir.NewParam("base", types.NewPointer(o.rec))
	idx := constant.NewInt(types.I64, 3)
	recordLayout(o)
	recordLayout(n)
	for _, b := range []*loopBuf{bi, bd} {
		gep := r.fieldAddr(n, base, idx, b)
		k := gep.Indices[1].(*constant.Int).X.Int64()
		if got := o.rec.Fields[k]; !got.Equal(b.elem) {
			t.Errorf("non-owner's %s field addressed after layout at %d, a %s in %s", b.elem, k, got, o.rec)
		}
	}
}
