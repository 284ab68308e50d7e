package typeanalysis

import "testing"

// An array of structs {int, double} on the stack, filled at a variable
// index, then an integer stored over one element's double: the alloca's
// facts keep the double field of every element (not Integer everywhere,
// as the integer fields once claimed), so the integer store is seen to
// overwrite a whole double.
const stridedFields = `
%struct.var = type { i32, double }
define void @f(double %x, i64 %k, i64 %bits) {
entry:
  %v = alloca [6 x %struct.var], align 16
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %tag = getelementptr inbounds [6 x %struct.var], [6 x %struct.var]* %v, i64 0, i64 %i, i32 0
  store i32 1, i32* %tag, align 16
  %d = getelementptr inbounds [6 x %struct.var], [6 x %struct.var]* %v, i64 0, i64 %i, i32 1
  store double %x, double* %d, align 8
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, 6
  br i1 %done, label %exit, label %loop
exit:
  %e = getelementptr inbounds [6 x %struct.var], [6 x %struct.var]* %v, i64 0, i64 %k
  %head = bitcast %struct.var* %e to i64*
  store i64 2, i64* %head, align 16
  %u = getelementptr inbounds [6 x %struct.var], [6 x %struct.var]* %v, i64 0, i64 %k, i32 1
  %ui = bitcast double* %u to i64*
  store i64 %bits, i64* %ui, align 8
  ret void
}
`

func TestStridedFieldsOfStructArray(t *testing.T) {
	t.Parallel()
	a, m := analyze(t, stridedFields, "f")
	v := named(t, m, "f", "v")
	for el := int64(0); el < 6; el++ {
		if c := a.Tree(v).At(0, 16*el+8); c != Double {
			t.Errorf("element %d's double field: %v, want %v (tree %v)", el, c, Double, a.Tree(v))
		}
	}
	lo, hi, found, exact := a.FloatsOverwritten(named(t, m, "f", "ui"), 8)
	if lo != 0 || hi != 8 || !found || !exact {
		t.Errorf("integer over the double: window [%d, %d) found %v exact %v, want [0, 8) true true", lo, hi, found, exact)
	}
	// The elements' integers are not kept (they would conflict with the
	// double they overwrite in one element): the int field is bytes of
	// which nothing is known, cleared as a float store's, never reaching
	// the double.
	if lo, hi, _, exact := a.FloatsOverwritten(named(t, m, "f", "tag"), 4); lo != 0 || hi != 4 || !exact {
		t.Errorf("the int field: window [%d, %d) exact %v, want [0, 4) true", lo, hi, exact)
	}
}

// A variable index into a struct's array field that other fields follow
// (Fortran's l%w(i) in a derived type { real w(16); real bias; integer n },
// the getelementptr without inbounds) reaches the array only: the integer
// after it stays an integer, the array's elements doubles.
func TestStridedArrayFieldBounded(t *testing.T) {
	const src = `
%layer = type { [16 x double], double, i32 }
define i32 @f(i64 %n, double %v) {
  %l = alloca %layer
  %np = getelementptr inbounds %layer, %layer* %l, i64 0, i32 2
  %n32 = trunc i64 %n to i32
  store i32 %n32, i32* %np
  br label %loop
loop:
  %i = phi i64 [ 0, %0 ], [ %i1, %loop ]
  %p = getelementptr %layer, %layer* %l, i64 0, i32 0, i64 %i
  store double %v, double* %p
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %done
done:
  %r = load i32, i32* %np
  ret i32 %r
}
`
	a, m := analyze(t, src, "f")
	if a.Mixed(named(t, m, "f", "n")) || a.Mixed(named(t, m, "f", "r")) {
		t.Errorf("the integer field holds floats: %%n %s, %%r %s", a.Tree(named(t, m, "f", "n")), a.Tree(named(t, m, "f", "r")))
	}
	l := a.Tree(named(t, m, "f", "l"))
	if l.At(0, 0) != Double || l.At(0, 120) != Double || l.At(0, 136) != Integer {
		t.Errorf("%%l: %s", l)
	}
}
