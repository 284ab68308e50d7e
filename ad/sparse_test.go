package ad

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
)

const sparseDecls = `
declare double* @__enzyme_todense(i8*, i8*, i64)
declare i8* @__gozyme_noneed_view(i8*)
declare void @sink(double*)
declare i8* @malloc(i64)
declare void @free(i8*)
define double @ld(i64 %off, i64 %i) {
  %c = sitofp i64 %off to double
  ret double %c
}
define void @st(double %v, i64 %off, i64 %i) {
  ret void
}
`

// TestLowerDenseViews: loads and stores through a view (scalar and
// vector) become calls of its functions with the byte offset; any other
// use of a derived address, and a needed value read through an
// enzyme_dupnoneed constant primal, are errors naming the function.
func TestLowerDenseViews(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		want       []string // in the lowered text, or the error
		err        bool
	}{
		{"loads and stores", `
define double @f(i64 %i) {
  %p = call double* @__enzyme_todense(i8* bitcast (double (i64, i64)* @ld to i8*), i8* bitcast (void (double, i64, i64)* @st to i8*), i64 %i)
  %q = getelementptr inbounds double, double* %p, i64 3
  %x = load double, double* %q
  %vp = bitcast double* %q to <2 x double>*
  %v = load <2 x double>, <2 x double>* %vp
  store double %x, double* %p
  store <2 x double> %v, <2 x double>* %vp
  %e = extractelement <2 x double> %v, i32 1
  %s = fadd double %x, %e
  ret double %s
}`, []string{"call double @ld(i64", "call void @st(double", "insertelement", "getelementptr double, double* null, i64 3"}, false},
		{"escape", `
define void @f(i64 %i) {
  %p = call double* @__enzyme_todense(i8* bitcast (double (i64, i64)* @ld to i8*), i8* bitcast (void (double, i64, i64)* @st to i8*), i64 %i)
  %q = getelementptr inbounds double, double* %p, i64 1
  call void @sink(double* %q)
  ret void
}`, []string{"'f'", "a call of 'sink'"}, true},
		{"compared", `
define i1 @f(i64 %i, double* %o) {
  %p = call double* @__enzyme_todense(i8* bitcast (double (i64, i64)* @ld to i8*), i8* bitcast (void (double, i64, i64)* @st to i8*), i64 %i)
  %c = icmp eq double* %p, %o
  ret i1 %c
}`, []string{"'f'", "icmp"}, true},
		{"spilled", `
define double @f(i64 %i) {
  %s = alloca double*
  %p = call double* @__enzyme_todense(i8* bitcast (double (i64, i64)* @ld to i8*), i8* bitcast (void (double, i64, i64)* @st to i8*), i64 %i)
  %q = getelementptr inbounds double, double* %p, i64 3
  store double* %q, double** %s
  %r = load double*, double** %s
  %x = load double, double* %r
  ret double %x
}`, []string{"call double @ld(i64", "store double* %q, double** %s", "ptrtoint double* %r to i64"}, false},
		{"record", `
define double @f(i64 %i, i64 %n) {
  %s = alloca { i64, double* }*
  store { i64, double* }* null, { i64, double* }** %s
  %p = call double* @__enzyme_todense(i8* bitcast (double (i64, i64)* @ld to i8*), i8* bitcast (void (double, i64, i64)* @st to i8*), i64 %i)
  %m = call i8* @malloc(i64 %n)
  %a = bitcast i8* %m to { i64, double* }*
  store { i64, double* }* %a, { i64, double* }** %s
  %b = load { i64, double* }*, { i64, double* }** %s
  %f0 = getelementptr { i64, double* }, { i64, double* }* %b, i64 %i, i32 0
  store i64 %i, i64* %f0
  %f1 = getelementptr { i64, double* }, { i64, double* }* %b, i64 %i, i32 1
  %q = getelementptr inbounds double, double* %p, i64 %i
  store double* %q, double** %f1
  %c = load { i64, double* }*, { i64, double* }** %s
  %g1 = getelementptr { i64, double* }, { i64, double* }* %c, i64 %i, i32 1
  %r = load double*, double** %g1
  %x = load double, double* %r
  %cb = bitcast { i64, double* }* %c to i8*
  call void @free(i8* %cb)
  ret double %x
}`, []string{"call double @ld(i64"}, false},
		{"spilled with another pointer", `
define double @f(i64 %i, double* %o, i1 %c) {
  %s = alloca double*
  %p = call double* @__enzyme_todense(i8* bitcast (double (i64, i64)* @ld to i8*), i8* bitcast (void (double, i64, i64)* @st to i8*), i64 %i)
  store double* %p, double** %s
  br i1 %c, label %other, label %join
other:
  store double* %o, double** %s
  br label %join
join:
  %r = load double*, double** %s
  %x = load double, double* %r
  ret double %x
}`, []string{"'f'", "is stored to memory"}, true},
		{"spill escapes", `
define double @f(i64 %i) {
  %s = alloca double*
  %p = call double* @__enzyme_todense(i8* bitcast (double (i64, i64)* @ld to i8*), i8* bitcast (void (double, i64, i64)* @st to i8*), i64 %i)
  store double* %p, double** %s
  %sb = bitcast double** %s to double*
  call void @sink(double* %sb)
  %r = load double*, double** %s
  %x = load double, double* %r
  ret double %x
}`, []string{"'f'", "is stored to memory"}, true},
		{"spill escapes through an attributed argument", `
define double @f(i64 %i) {
  %s = alloca double*
  %p = call double* @__enzyme_todense(i8* bitcast (double (i64, i64)* @ld to i8*), i8* bitcast (void (double, i64, i64)* @st to i8*), i64 %i)
  store double* %p, double** %s
  %sb = bitcast double** %s to double*
  call void @sink(double* noundef %sb)
  %r = load double*, double** %s
  %x = load double, double* %r
  ret double %x
}`, []string{"'f'", "is stored to memory"}, true},
		{"record with attributed arguments and debug values", `
define double @f(i64 %i, i64 %n) {
  %s = alloca { i64, double* }*
  call void @llvm.dbg.value(metadata { i64, double* }** %s, metadata !1, metadata !DIExpression())
  store { i64, double* }* null, { i64, double* }** %s
  %p = call double* @__enzyme_todense(i8* bitcast (double (i64, i64)* @ld to i8*), i8* bitcast (void (double, i64, i64)* @st to i8*), i64 %i)
  %m = call i8* @malloc(i64 %n)
  %a = bitcast i8* %m to { i64, double* }*
  store { i64, double* }* %a, { i64, double* }** %s
  %b = load { i64, double* }*, { i64, double* }** %s
  %bb = bitcast { i64, double* }* %b to i8*
  %m2 = call i8* @realloc(i8* noundef %bb, i64 %n)
  %a2 = bitcast i8* %m2 to { i64, double* }*
  store { i64, double* }* %a2, { i64, double* }** %s
  %b2 = load { i64, double* }*, { i64, double* }** %s
  call void @llvm.dbg.value(metadata { i64, double* }* %b2, metadata !1, metadata !DIExpression())
  %f1 = getelementptr { i64, double* }, { i64, double* }* %b2, i64 %i, i32 1
  %q = getelementptr inbounds double, double* %p, i64 %i
  store double* %q, double** %f1
  %c = load { i64, double* }*, { i64, double* }** %s
  %g1 = getelementptr { i64, double* }, { i64, double* }* %c, i64 %i, i32 1
  %r = load double*, double** %g1
  %x = load double, double* %r
  %cb = bitcast { i64, double* }* %c to i8*
  call void @free(i8* noundef %cb)
  ret double %x
}
declare i8* @realloc(i8*, i64)
declare void @llvm.dbg.value(metadata, metadata, metadata)
!1 = !{}`, []string{"call double @ld(i64"}, false},
		{"record field overlapped", `
define double @f(i64 %i, i64 %n, i64 %z) {
  %s = alloca { i64, double* }*
  %p = call double* @__enzyme_todense(i8* bitcast (double (i64, i64)* @ld to i8*), i8* bitcast (void (double, i64, i64)* @st to i8*), i64 %i)
  %m = call i8* @malloc(i64 %n)
  %a = bitcast i8* %m to { i64, double* }*
  store { i64, double* }* %a, { i64, double* }** %s
  %b = load { i64, double* }*, { i64, double* }** %s
  %f1 = getelementptr { i64, double* }, { i64, double* }* %b, i64 %i, i32 1
  store double* %p, double** %f1
  %f0 = getelementptr { i64, double* }, { i64, double* }* %b, i64 %i, i32 0
  %w = bitcast i64* %f0 to <2 x i64>*
  store <2 x i64> zeroinitializer, <2 x i64>* %w
  %r = load double*, double** %f1
  %x = load double, double* %r
  ret double %x
}`, []string{"'f'", "is stored to memory"}, true},
		{"noneed dead", `
define void @f(double %d) {
  %m = call i8* @__gozyme_noneed_view(i8* inttoptr (i64 1 to i8*))
  %p = bitcast i8* %m to double*
  %x = load double, double* %p
  %y = fadd double %x, %d
  store double %y, double* %p
  ret void
}`, []string{"define void @f(double %d)"}, false},
		{"noneed needed", `
define double @f(double %d) {
  %m = call i8* @__gozyme_noneed_view(i8* inttoptr (i64 1 to i8*))
  %p = bitcast i8* %m to double*
  %x = load double, double* %p
  ret double %x
}`, []string{"'f'", "enzyme_dupnoneed"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := irutil.ParseText(tc.name, []byte(sparseDecls+tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if !PrepareDenseViews(m) {
				t.Fatal("no views found")
			}
			err = LowerDenseViews(m)
			if tc.err {
				if err == nil {
					t.Fatalf("no error; lowered:\n%s", m)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not mention %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			text := m.String()
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("lowered text lacks %q:\n%s", w, text)
				}
			}
			for _, bad := range []string{"call double* @__enzyme_todense", "call i8* @__gozyme_noneed_view", "inttoptr (i64 1 to double*)"} {
				if strings.Contains(text, bad) {
					t.Errorf("lowered text keeps %q:\n%s", bad, text)
				}
			}
		})
	}
}
