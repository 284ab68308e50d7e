package activity

import (
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir/value"
)

// memberPointerIR is a C++ member-function pointer call at -O0: the
// callee is a phi of the virtual arm (a function pointer loaded from the
// vtable of an object with a shadow) and the non-virtual arm (an
// inttoptr of the pointer's integer).
const memberPointerIR = `
define i64 @f(i8** %obj, i64 %mp) {
entry:
  %virt = and i64 %mp, 1
  %isv = icmp ne i64 %virt, 0
  br i1 %isv, label %v, label %nv
v:
  %vt = load i8*, i8** %obj
  %off = sub i64 %mp, 1
  %slot = getelementptr i8, i8* %vt, i64 %off
  %fp = bitcast i8* %slot to double (i8*)**
  %fv = load double (i8*)*, double (i8*)** %fp
  br label %join
nv:
  %fn = inttoptr i64 %mp to double (i8*)*
  br label %join
join:
  %callee = phi double (i8*)* [ %fv, %v ], [ %fn, %nv ]
  %r = ptrtoint double (i8*)* %callee to i64
  ret i64 %r
}
`

// TestCodePointerPhiNoShadow: a phi of function pointers is code, not
// memory holding derivatives: it takes no shadow even where one arm (the
// vtable load) has one, so its inttoptr arm needs none (no unmet need).
func TestCodePointerPhiNoShadow(t *testing.T) {
	t.Parallel()
	m, err := irutil.ParseText("test.ll", []byte(memberPointerIR))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	a := Analyze(f, []Activity{Dup, Const}, false, false, noCalls{})
	vals := map[string]value.Value{}
	for _, b := range f.Blocks {
		for _, inst := range b.Insts {
			if v, ok := inst.(value.Named); ok {
				vals[v.Name()] = v
			}
		}
	}
	if a.HasShadow(vals["callee"]) {
		t.Errorf("HasShadow(%%callee) = true, want false")
	}
	if len(a.Unmet) != 0 {
		t.Errorf("unmet needs %v, want none", a.Unmet)
	}
}
