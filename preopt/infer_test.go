package preopt

import (
	"reflect"
	"testing"

	"github.com/gozyme/gozyme/irutil"
)

// Each function is named for whether it should be inferred argmemonly.
const inferIR = `
@g = global double 0.0

declare double @llvm.sqrt.f64(double) #0
declare void @llvm.memcpy.p0i8.p0i8.i64(i8* noalias nocapture writeonly, i8* noalias nocapture readonly, i64, i1 immarg) #1
declare double @unknown(double*)

define double @yes_reads_arg(double* %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr inbounds double, double* %x, i64 %i
  %v = load double, double* %p
  %s1 = fadd double %s, %v
  %i1 = add i64 %i, 1
  %c = icmp eq i64 %i1, %n
  br i1 %c, label %done, label %loop
done:
  %r = call double @llvm.sqrt.f64(double %s1)
  ret double %r
}

define internal double @yes_calls_and_alloca(double* %x, double* %y, i1 %c) {
  %t = alloca double
  %p = select i1 %c, double* %x, double* %y
  %r = call double @yes_reads_arg(double* %p, i64 4)
  store double %r, double* %t
  %a = bitcast double* %t to i8*
  %b = bitcast double* %y to i8*
  call void @llvm.memcpy.p0i8.p0i8.i64(i8* %b, i8* %a, i64 8, i1 false)
  ret double %r
}

define double @yes_recursive(double* %x, i32 %n) {
  %z = icmp eq i32 %n, 0
  br i1 %z, label %base, label %rec
base:
  %v = load double, double* %x
  ret double %v
rec:
  %m = sub i32 %n, 1
  %r = call double @yes_recursive(double* %x, i32 %m)
  ret double %r
}

define double @no_global(double* %x) {
  %v = load double, double* @g
  ret double %v
}

define double @no_loaded_pointer(double** %x) {
  %p = load double*, double** %x
  %v = load double, double* %p
  ret double %v
}

define double @no_unknown_call(double* %x) {
  %v = call double @unknown(double* %x)
  ret double %v
}

define double @no_calls_no(double* %x) {
  %v = call double @no_global(double* %x)
  ret double %v
}

define linkonce_odr double @no_replaceable(double* %x) {
  %v = load double, double* %x
  ret double %v
}

define double @no_already(double* %x) #1 {
  %v = load double, double* %x
  ret double %v
}

attributes #0 = { nofree nosync nounwind readnone speculatable willreturn }
attributes #1 = { argmemonly nofree nounwind willreturn }
`

func TestArgMemOnly(t *testing.T) {
	m, err := irutil.ParseText("infer.ll", []byte(inferIR))
	if err != nil {
		t.Fatal(err)
	}
	got := ArgMemOnly(m)
	want := []string{"yes_calls_and_alloca", "yes_reads_arg", "yes_recursive"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ArgMemOnly = %v, want %v", got, want)
	}
}
