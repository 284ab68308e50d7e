package flang

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
)

func TestMemoryAttrs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"none", "readnone"},
		{"read", "readonly"},
		{"write", "writeonly"},
		{"readwrite", ""},
		{"argmem: read", "argmemonly readonly"},
		{"argmem: readwrite", "argmemonly"},
		{"argmem: write", "argmemonly writeonly"},
		{"inaccessiblemem: readwrite", "inaccessiblememonly"},
		{"argmem: readwrite, inaccessiblemem: readwrite", "inaccessiblemem_or_argmemonly"},
		{"argmem: read, inaccessiblemem: write", "inaccessiblemem_or_argmemonly"},
		{"read, inaccessiblemem: none", "readonly"},
		{"none, argmem: read", "argmemonly readonly"},
		{"write, argmem: readwrite", ""},
	} {
		if got := memoryAttrs(c.in); got != c.want {
			t.Errorf("memory(%s) -> %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNormalizeSnippets(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{
			"attributes #0 = { nofree nosync nounwind memory(read, inaccessiblemem: none) }\n",
			"attributes #0 = { nofree nosync nounwind readonly }\n",
		},
		{
			"attributes #1 = { nocallback nofree nounwind willreturn memory(argmem: readwrite) }\n",
			"attributes #1 = { nocallback nofree nounwind willreturn argmemonly }\n",
		},
		{
			"attributes #2 = { memory(readwrite) nounwind }\n",
			"attributes #2 = { nounwind }\n",
		},
		{
			"declare void @free(i8* allocptr nocapture noundef) local_unnamed_addr #1\n",
			"declare void @free(i8* nocapture noundef) local_unnamed_addr #1\n",
		},
		{
			"declare void @g(i8* allocptr)\n",
			"declare void @g(i8*)\n",
		},
		{
			`attributes #3 = { allockind("alloc,uninitialized") allocsize(0) "alloc-family"="malloc" }` + "\n",
			`attributes #3 = { allocsize(0) "alloc-family"="malloc" }` + "\n",
		},
		{
			"attributes #4 = { uwtable(sync) }\n",
			"attributes #4 = { uwtable }\n",
		},
		{
			"declare double @h(double nofpclass(nan inf) %x)\n",
			"declare double @h(double %x)\n",
		},
		{
			`!1 = !{i32 8, !"PIC Level", i32 2}` + "\n",
			`!1 = !{i32 7, !"PIC Level", i32 2}` + "\n",
		},
		// Strings and comments are not code.
		{
			`@s = constant [12 x i8] c"memory(none)" ; allocptr memory(read)` + "\n",
			`@s = constant [12 x i8] c"memory(none)" ; allocptr memory(read)` + "\n",
		},
		{
			"  %memory = call i8* @allocptr.user(i8* %allocptr)\n",
			"  %memory = call i8* @allocptr.user(i8* %allocptr)\n",
		},
		// A flag with behaviour 8 that is not a module-flag tuple start.
		{
			"!5 = !{i64 8, !\"x\"}\n",
			"!5 = !{i64 8, !\"x\"}\n",
		},
	} {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q)\n got  %q\n want %q", c.in, got, c.want)
		}
	}
}

func TestTypedIntrinsicNames(t *testing.T) {
	in := `    fir.call @llvm.memmove.p0.p0.i64(%11, %12, %10, %false) fastmath<contract> : (!fir.ref<i8>, !fir.ref<i8>, i64, i1) -> ()
  func.func private @llvm.memmove.p0.p0.i64(!fir.ref<i8>, !fir.ref<i8>, i64, i1)
  func.func private @llvm.memset.p0.i32(!fir.ref<i8>, i8, i32, i1)
  func.func private @llvm.memcpy.p0.p0.i64x(!fir.ref<i8>)
`
	want := `    fir.call @llvm.memmove.p0i8.p0i8.i64(%11, %12, %10, %false) fastmath<contract> : (!fir.ref<i8>, !fir.ref<i8>, i64, i1) -> ()
  func.func private @llvm.memmove.p0i8.p0i8.i64(!fir.ref<i8>, !fir.ref<i8>, i64, i1)
  func.func private @llvm.memset.p0i8.i32(!fir.ref<i8>, i8, i32, i1)
  func.func private @llvm.memcpy.p0.p0.i64x(!fir.ref<i8>)
`
	if got := TypedIntrinsicNames(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSplitJob(t *testing.T) {
	line := ` "/usr/lib/llvm-16/bin/flang-new" "-fc1" "-D" "A=\"x y\"" "-I" "a\\b" "-o" "e.o" "e.f90"`
	want := []string{"/usr/lib/llvm-16/bin/flang-new", "-fc1", "-D", `A="x y"`, "-I", `a\b`, "-o", "e.o", "e.f90"}
	if got := toolchains.SplitJob(line); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestEmbedOptLevel(t *testing.T) {
	for _, c := range []struct {
		opts []string
		want string
	}{
		{nil, "-O1"}, {[]string{"-O0"}, "-O1"}, {[]string{"-O2"}, "-O2"},
		{[]string{"-O3", "-O0"}, "-O1"}, {[]string{"-O0", "-O3"}, "-O3"},
	} {
		if got := embedOptLevel(c.opts); got != c.want {
			t.Errorf("embedOptLevel(%q) = %s, want %s", c.opts, got, c.want)
		}
	}
}

// TestBitcodeRoute compiles Fortran covering the constructs the AD tests
// use (and character concatenation, which crashes flang-16's direct
// typed-pointer route) at several -O levels, and checks that llvm-14 and
// llir read the result.
func TestBitcodeRoute(t *testing.T) {
	driver, err := Driver(toolchains.Config{})
	if err != nil {
		t.Skipf("flang is not installed (make deps-fortran): %v", err)
	}
	if _, err := toolchains.Tool("llvm-as"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "route.f90")
	if err := os.WriteFile(src, []byte(routeSource), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, level := range []string{"-O0", "-O1", "-O2"} {
		t.Run(level, func(t *testing.T) {
			work := t.TempDir()
			fc1, err := FrontendArgs(ctx, driver, []string{"-c", level, "-J", work, src, "-o", filepath.Join(work, "route.o")})
			if err != nil {
				t.Fatal(err)
			}
			bc, err := Bitcode(ctx, driver, fc1, work)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(work, "out.bc")
			if err := os.WriteFile(path, bc, 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := irutil.LoadBitcode(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, f := range m.Funcs {
				names[f.Name()] = len(f.Blocks) > 0
			}
			for _, want := range []string{"energy", "_QMrouteProutine", "_QQmain"} {
				if !names[want] {
					t.Errorf("%s: no definition of %s in %v", level, want, names)
				}
			}
			for name, defined := range names {
				// SUM and DOT_PRODUCT must be loops at every level.
				if !defined && (strings.HasPrefix(name, "_FortranASum") || strings.HasPrefix(name, "_FortranADotProduct")) {
					if usesFunc(t, path, name) {
						t.Errorf("%s: %s is still a runtime call", level, name)
					}
				}
			}
			if _, err := exec.LookPath("opt-14"); err == nil {
				if out, err := exec.Command("opt-14", "-verify", "-disable-output", path).CombinedOutput(); err != nil {
					t.Errorf("opt-14 -verify: %v\n%s", err, out)
				}
			}
		})
	}
}

// usesFunc reports whether the bitcode at path calls name.
func usesFunc(t *testing.T, path, name string) bool {
	out, err := toolchains.Run(context.Background(), "llvm-dis", "-o", "-", path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(out), "call double @"+name+"(")
}

const routeSource = `module route
  use iso_c_binding
  implicit none
  type :: particle
    real(8) :: pos(3), mass
  end type
  real(8), allocatable :: w(:)
contains
  function energy(x, n) bind(C, name="energy") result(e)
    integer(c_int), value :: n
    real(c_double), intent(in) :: x(n)
    real(c_double) :: e
    e = sum(x*x) + dot_product(x, x) + sum(exp(x))
  end function
  subroutine routine(p, y)
    type(particle), intent(inout) :: p(:)
    real(8), intent(out) :: y
    integer :: i
    y = 0
    do i = 1, size(p)
      y = y + p(i)%mass * sqrt(sum(p(i)%pos**2)) * w(i)
    end do
  end subroutine
end module

program main
  use route
  character(len=:), allocatable :: s
  s = 'ab' // 'cd'
  allocate(w(2))
  w = 1
  print *, s, energy([1d0, 2d0], 2)
end program
`
