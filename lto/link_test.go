package lto

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// buildGozymeLd builds cmd/gozyme-ld into a temp dir.
func buildGozymeLd(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "gozyme-ld")
	cmd := exec.Command("go", "build", "-o", out, "github.com/gozyme/gozyme/cmd/gozyme-ld")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

const progSrc = `#include <stdio.h>
#include <math.h>
int f(void);
int main(int c, char **v) { printf("%f %d\n", sin(c), f()); return 0; }
`

// TestGozymeLdNoRootsIdentical links fat objects and an archive with no AD
// roots through gozyme-ld and plainly, and compares the executables.
func TestGozymeLdNoRootsIdentical(t *testing.T) {
	gld := buildGozymeLd(t)
	clang := needTool(t, "clang-14")
	dir := t.TempDir()
	mainObj := fatCompile(t, dir, "main.o", progSrc, "-O1")
	lazyLib(t, dir)
	for _, o := range []string{mainObj} {
		if err := MarkFatObject(o); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, realLD string
		flags        []string
	}{
		{"bfd", "", nil},
		{"bfd-static", "", []string{"-static"}},
		{"lld", "ld.lld-14", []string{"-fuse-ld=lld"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			common := append(append([]string{}, c.flags...), mainObj, "-L.", "-ll", "-lm")
			plain := filepath.Join(dir, "plain-"+c.name)
			run(t, dir, clang, append(common, "-o", plain)...)
			via := filepath.Join(dir, "via-"+c.name)
			cmd := exec.Command(clang, append(common, "--ld-path="+gld, "-o", via)...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOZYME_REAL_LD="+c.realLD)
			if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
				t.Fatalf("link via gozyme-ld: %v\n%s", err, out)
			}
			if !bytes.Equal(readObj(t, plain), readObj(t, via)) {
				t.Fatal("executables differ")
			}
		})
	}

	// A failing link passes the linker's message and status through.
	bad := fatCompile(t, dir, "bad.o", "int missing(void); int main(void) { return missing(); }")
	cmd := exec.Command(clang, bad, "--ld-path="+gld, "-o", filepath.Join(dir, "bad"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 || !strings.Contains(stderr.String(), "undefined reference to `missing'") {
		t.Fatalf("failing link: %v\n%s", err, stderr.String())
	}
}

// fakeRewrite stands in for RewriteObject: it compiles dsq as 2*x and
// records the jobs it was given.
type fakeRewrite struct {
	t    *testing.T
	mu   sync.Mutex
	jobs []RewriteJob
	fail error
	boom bool // panic instead
}

func (f *fakeRewrite) rewrite(ctx context.Context, job RewriteJob) error {
	f.mu.Lock()
	f.jobs = append(f.jobs, job)
	f.mu.Unlock()
	if f.boom {
		panic("boom")
	}
	if f.fail != nil {
		return f.fail
	}
	src := filepath.Join(job.TempDir, filepath.Base(job.OutPath)+".c")
	if err := os.WriteFile(src, []byte("double dsq(double x) { return 2 * x; }\n"), 0o644); err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, "clang-14", "-c", src, "-o", job.OutPath).CombinedOutput()
	if err != nil {
		return errors.New(string(out))
	}
	return nil
}

func useFake(t *testing.T, f *fakeRewrite) {
	old := rewriteObject
	rewriteObject = f.rewrite
	t.Cleanup(func() { rewriteObject = old })
}

const dsqMain = `#include <stdio.h>
double dsq(double);
int main(void) { printf("%g\n", dsq(3)); return 0; }
`

func TestLinkSubstitutesRoots(t *testing.T) {
	dir := t.TempDir()
	mainObj := plainCompile(t, dir, "main.o", dsqMain)
	root := fatCompile(t, dir, "r.o", rootSrc, "-O2")
	if err := MarkFatObject(root); err != nil {
		t.Fatal(err)
	}
	other := fatCompile(t, dir, "other.o", "int unused_other(void) { return 1; }")
	run(t, dir, needTool(t, "ar"), "rc", "libr.a", other, root)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("GOZYME_OPT_LEVEL", "")
	t.Setenv("GOZYME_REAL_LD", "")

	for _, c := range []struct {
		name, input, origin string
	}{
		{"object", root, root},
		{"archive member", filepath.Join(dir, "libr.a"), filepath.Join(dir, "libr.a") + "(r.o)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := &fakeRewrite{t: t}
			useFake(t, fake)
			var outs [][]byte
			for i := 0; i < 2; i++ {
				exe := filepath.Join(dir, "app")
				_, args := clangLinkLine(t, dir, mainObj, c.input, "-o", exe)
				if code := LinkMain(args); code != 0 {
					t.Fatalf("LinkMain exit %d", code)
				}
				out, err := exec.Command(exe).Output()
				if err != nil || strings.TrimSpace(string(out)) != "6" {
					t.Fatalf("program printed %q (%v), want 6", out, err)
				}
				outs = append(outs, readObj(t, exe))
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Error("two links gave different executables")
			}
			if len(fake.jobs) != 2 {
				t.Fatalf("%d rewrite jobs, want 1 per link", len(fake.jobs))
			}
			j := fake.jobs[0]
			if j.Origin() != c.origin || j.OptLevel != "2" || !HasADRoots(j.Modules[j.Anchor].Bitcode) || len(j.CC1Args) == 0 || j.CC1Args[0] != "-cc1" {
				t.Errorf("job origin %q opt %q cc1 %.3q", j.Origin(), j.OptLevel, j.CC1Args)
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
				t.Errorf("temporaries left behind: %q", left)
			}
		})
	}

	// GOZYME_OPT_LEVEL wins over the compile's -O; GOZYME_KEEP_TEMPS keeps files.
	fake := &fakeRewrite{t: t}
	useFake(t, fake)
	keep := filepath.Join(t.TempDir(), "keep")
	t.Setenv("GOZYME_OPT_LEVEL", "3")
	t.Setenv("GOZYME_KEEP_TEMPS", keep)
	_, args := clangLinkLine(t, dir, mainObj, filepath.Join(dir, "libr.a"), "-o", filepath.Join(dir, "app"))
	if code := LinkMain(args); code != 0 {
		t.Fatalf("LinkMain exit %d", code)
	}
	if fake.jobs[0].OptLevel != "3" {
		t.Errorf("opt level %q with GOZYME_OPT_LEVEL=3", fake.jobs[0].OptLevel)
	}
	kept, _ := filepath.Glob(filepath.Join(keep, "gozyme-ld-*", "arg*"))
	if len(kept) < 2 { // the rewritten member and the archive copy
		t.Errorf("kept temporaries: %q", kept)
	}
}

func TestLinkRewriteFailure(t *testing.T) {
	dir := t.TempDir()
	mainObj := plainCompile(t, dir, "main.o", dsqMain)
	root := fatCompile(t, dir, "r.o", rootSrc)
	run(t, dir, needTool(t, "ar"), "rc", "libr.a", root)
	t.Setenv("GOZYME_REAL_LD", "")
	t.Setenv("GOZYME_KEEP_TEMPS", "")
	useFake(t, &fakeRewrite{t: t, fail: errors.New("cannot differentiate 'sq'")})
	exe := writeFile(t, dir, "app", "stale output")
	_, args := clangLinkLine(t, dir, mainObj, filepath.Join(dir, "libr.a"), "-o", exe)
	code, err := link(context.Background(), ConfigFromEnv(), args)
	want := filepath.Join(dir, "libr.a") + "(r.o): cannot differentiate 'sq'"
	if code != 1 || err == nil || err.Error() != want {
		t.Fatalf("link = %d, %v; want error %q", code, err, want)
	}
	if _, err := os.Stat(exe); !os.IsNotExist(err) {
		t.Error("output left behind after a failed rewrite")
	}
}

// A panic while rewriting is an internal error naming the module: the real
// linker does not run (its output stays absent) and the process lives on.
func TestRewritePanicIsInternalError(t *testing.T) {
	dir := t.TempDir()
	mainObj := plainCompile(t, dir, "main.o", dsqMain)
	root := fatCompile(t, dir, "r.o", rootSrc)
	t.Setenv("GOZYME_REAL_LD", "")
	t.Setenv("GOZYME_KEEP_TEMPS", "")
	useFake(t, &fakeRewrite{t: t, boom: true})
	exe := filepath.Join(dir, "app")
	_, args := clangLinkLine(t, dir, mainObj, root, "-o", exe)
	code, err := link(context.Background(), ConfigFromEnv(), args)
	if code != 1 || err == nil || !strings.Contains(err.Error(), root+": internal error: boom") {
		t.Fatalf("link = %d, %v; want an internal error naming %s", code, err, root)
	}
	if _, err := os.Stat(exe); !os.IsNotExist(err) {
		t.Error("the real linker ran after the panic")
	}
}

func TestRootsWithoutBitcode(t *testing.T) {
	dir := t.TempDir()
	mainObj := plainCompile(t, dir, "main.o", dsqMain)
	root := plainCompile(t, dir, "r.o", rootSrc)
	_, args := clangLinkLine(t, dir, mainObj, root, "-o", filepath.Join(dir, "app"))
	_, err := link(context.Background(), ConfigFromEnv(), args)
	if err == nil || !strings.HasPrefix(err.Error(), root+": calls an Enzyme entry point but has no embedded bitcode") {
		t.Fatalf("err = %v", err)
	}
}

// TestArchiveMemberRootDetected checks that a root inside an archive member
// is found and named by its member, and that unpulled members are ignored.
func TestArchiveMemberRootDetected(t *testing.T) {
	dir := t.TempDir()
	plainCompile(t, dir, "main.o", dsqMain)
	fatCompile(t, dir, "r.o", rootSrc, "-O1")
	fatCompile(t, dir, "unpulled.o", "double __enzyme_fwddiff(void *, ...); double g(double x) { return __enzyme_fwddiff((void *)g, x, 1.0); }")
	run(t, dir, needTool(t, "ar"), "rc", "libr.a", "unpulled.o", "r.o")
	roots, err := rootInputs(resolveClang(t, dir, "main.o", "libr.a", "-o", "app"))
	if err != nil {
		t.Fatal(err)
	}
	if len(roots) != 1 || roots[0].Origin != filepath.Join(dir, "libr.a")+"(r.o)" || roots[0].Member.Index != 1 {
		t.Fatalf("roots %v", roots)
	}
	if OptLevelFromCC1(roots[0].CC1Args) != "1" {
		t.Errorf("opt level %q", OptLevelFromCC1(roots[0].CC1Args))
	}
}

func TestLinkRelocatablePassesThrough(t *testing.T) {
	dir := t.TempDir()
	root := fatCompile(t, dir, "r.o", rootSrc)
	fake := &fakeRewrite{t: t, fail: errors.New("must not be called")}
	useFake(t, fake)
	t.Setenv("GOZYME_REAL_LD", "")
	out := filepath.Join(dir, "rel.o")
	code, err := link(context.Background(), ConfigFromEnv(), []string{"-r", root, "-o", out})
	if code != 0 || err != nil || len(fake.jobs) != 0 {
		t.Fatalf("ld -r: %d, %v, %d jobs", code, err, len(fake.jobs))
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}
