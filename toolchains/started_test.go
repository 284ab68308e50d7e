package toolchains

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A started opt fed a file writes what opt run on the file writes (but
// for the module's identifier; the module names its source), names the file in its errors, and one
// cancelled unfed is gone.
func TestStartedToolFeedsAndCancels(t *testing.T) {
	if _, err := Tool("opt"); err != nil {
		t.Skip("opt-14 not installed")
	}
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "m.ll")
	if err := os.WriteFile(src, []byte("source_filename = \"m.c\"\n\ndefine i32 @f(i32 %x) {\n  %a = add i32 %x, 0\n  ret i32 %a\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ran, fed := filepath.Join(dir, "ran.ll"), filepath.Join(dir, "fed.ll")
	if _, err := Run(ctx, "opt", "-passes=instcombine", "-S", src, "-o", ran); err != nil {
		t.Fatal(err)
	}
	s, err := Start(ctx, "opt", "-passes=instcombine", "-S", "-", "-o", fed)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Feed(src); err != nil {
		t.Fatal(err)
	}
	s.Cancel() // after Feed: nothing
	body := func(p string) string {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(string(data), "\n") // the ModuleID line
		return rest
	}
	if a, b := body(ran), body(fed); a != b || !strings.Contains(a, "ret i32 %x") {
		t.Errorf("fed opt wrote\n%s\nopt on the file wrote\n%s", b, a)
	}

	bad := filepath.Join(dir, "bad.ll")
	if err := os.WriteFile(bad, []byte("define i32 @f( {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Start(ctx, "opt", "-S", "-", "-o", filepath.Join(dir, "bad.out.ll"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Feed(bad)
	if err == nil || !strings.Contains(err.Error(), bad) || strings.Contains(err.Error(), "<stdin>") {
		t.Errorf("invalid input: error %v, want one naming %s", err, bad)
	}

	s, err = Start(ctx, "opt", "-S", "-", "-o", filepath.Join(dir, "never.ll"))
	if err != nil {
		t.Fatal(err)
	}
	s.Cancel()
	if s.cmd.ProcessState == nil {
		t.Error("cancelled opt not waited for")
	}
	if _, err := os.Stat(filepath.Join(dir, "never.ll")); err == nil {
		t.Error("cancelled opt wrote its output")
	}
}
