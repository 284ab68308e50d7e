package flang

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const firSample = `module attributes {fir.defaultkind = "a1c4d8i4l4r4", llvm.target_triple = "x86_64-pc-linux-gnu"} {
  func.func @quad(%arg0: !fir.ref<!fir.array<?xf64>> {fir.bindc_name = "x"} loc("./q.f90":5:3)) -> f64 attributes {fir.bindc_name = "quad"} {
    %0 = fir.alloca f64 loc(#loc2)
    fir.do_loop %arg1 = %c1 to %c2 step %c1 {
      fir.store %cst to %0 : !fir.ref<f64> loc(#loc2)
    } loc(#loc2)
    return %1 : f64 loc(#loc2)
  } loc(#loc1)
  func.func @_QPhelper() {
    return loc(#loc3)
  } loc(#loc3)
  func.func @_QQmain() {
    return loc(#loc4)
  } loc(#loc4)
  func.func private @_FortranAMatmul(!fir.box<none>) -> none attributes {fir.runtime} loc(#loc2)
} loc(#loc)
#loc = loc("/abs/q.f90":0:0)
#loc1 = loc("./q.f90":5:3)
#loc2 = loc("./q.f90":9:5)
#loc3 = loc("./q.f90":12:1)
#loc4 = loc(callsite("x" at "./q.f90":20:1))
`

func TestFuncLines(t *testing.T) {
	got := FuncLines(firSample)
	want := map[string]FuncLoc{
		"quad":    {"./q.f90", 5},
		"helper_": {"./q.f90", 12},
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %v, want %v", k, got[k], v)
		}
	}
}

const llSample = `; ModuleID = 'FIRModule'
define double @quad(double* %0) #0 {
  %2 = load double, double* %0, align 8, !tbaa !1
  %3 = tail call double @helper_(double %2) #1
  call void @llvm.memset.p0i8.i64(i8* null, i8 0, i64 0, i1 false)
  ret double %3
}

define double @helper_(double %0) {
  %2 = call double @llvm.sin.f64(double %0)
  ret double %2
}

define void @unlocated() {
  call void @free(i8* null)
  ret void
}

declare double @llvm.sin.f64(double)
declare void @llvm.memset.p0i8.i64(i8*, i8, i64, i1)
declare void @free(i8*)

attributes #0 = { nounwind }
attributes #1 = { nounwind }

!llvm.module.flags = !{!0}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{!2, !2, i64 0}
!2 = !{!"any data access", !3, i64 0}
!3 = !{!"Flang Type TBAA Root"}
`

// TestAddFuncLocations checks that the debug info it adds is valid LLVM 14
// IR and names each located function's line.
func TestAddFuncLocations(t *testing.T) {
	out := AddFuncLocations(llSample, map[string]FuncLoc{"quad": {"./q.f90", 5}, "helper_": {"./q.f90", 12}}, "/src")
	for _, want := range []string{
		`define double @quad(double* %0) #0 !dbg !`,
		`%3 = tail call double @helper_(double %2) #1, !dbg !`,
		`DIFile(filename: "q.f90", directory: "/src")`,
		`line: 12`,
		"!llvm.dbg.cu",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "@free(i8* null), !dbg") {
		t.Errorf("a call in an unlocated function got a location:\n%s", out)
	}
	if AddFuncLocations(llSample, nil, "/src") != llSample {
		t.Error("no locations should leave the text alone")
	}
	opt, err := exec.LookPath("opt-14")
	if err != nil {
		t.Skip("opt-14 is not installed")
	}
	p := filepath.Join(t.TempDir(), "m.ll")
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(opt, "-verify", "-disable-output", p).CombinedOutput(); err != nil {
		t.Errorf("opt-14 -verify: %v\n%s\n%s", err, msg, out)
	}
}
