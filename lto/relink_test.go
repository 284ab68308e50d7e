package lto

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFileLogSearchDirs: resolution records each search-directory
// candidate it looks for, found or not, so that a library appearing in an
// earlier directory, or the one found changing, is a change; a file
// nothing looked at is not.
func TestFileLogSearchDirs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	d1, d2 := filepath.Join(dir, "d1"), filepath.Join(dir, "d2")
	os.MkdirAll(d1, 0o755)
	os.MkdirAll(d2, 0o755)
	obj := plainCompile(t, dir, "x.o", "int x(void) { return 1; }\n")
	run(t, dir, "ar", "rcs", filepath.Join(d2, "libx.a"), obj)
	line, err := ParseLinkArgs([]string{"-L" + d1, "-L" + d2, "-lx", "-o", filepath.Join(dir, "out")})
	if err != nil {
		t.Fatal(err)
	}
	log := newFileLog()
	if _, err := Resolve(line, ResolveOptions{log: log}); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		filepath.Join(d1, "libx.so"): false, filepath.Join(d1, "libx.a"): false,
		filepath.Join(d2, "libx.so"): false, filepath.Join(d2, "libx.a"): true,
	}
	for _, s := range log.stamps {
		present, ok := want[s.Path]
		if !ok {
			t.Errorf("unexpected file recorded: %s", s.Path)
			continue
		}
		if s.Present != present {
			t.Errorf("%s recorded present=%v, want %v", s.Path, s.Present, present)
		}
		delete(want, s.Path)
	}
	for p := range want {
		t.Errorf("%s not recorded", p)
	}
	if changed, _ := checkStamps(log.stamps, time.Now()); changed != "" {
		t.Fatalf("nothing changed, yet %s did", changed)
	}
	os.WriteFile(filepath.Join(dir, "unrelated"), []byte("x"), 0o644)
	if changed, _ := checkStamps(log.stamps, time.Now()); changed != "" {
		t.Errorf("an unrelated file changed %s", changed)
	}
	run(t, dir, "ar", "rcs", filepath.Join(d1, "libx.a"), obj)
	if changed, _ := checkStamps(log.stamps, time.Now()); changed != filepath.Join(d1, "libx.a") {
		t.Errorf("a library in an earlier directory: changed = %q", changed)
	}
}

// TestCheckStampsContent: a file changed within racyWindow of the link
// carries a content sum, which catches a change its stamp does not show;
// once the stamp is old enough the sum is dropped (refresh).
func TestCheckStampsContent(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "a.o")
	os.WriteFile(p, []byte("old content"), 0o644)
	log := newFileLog()
	log.note(p)
	s := log.stamps[0]
	if s.Sum == "" {
		t.Fatal("a file written just now has no content sum")
	}
	// The same stamp with other bytes: what a change within one timestamp
	// tick leaves.
	other := []fileStamp{stampOf(p)}
	other[0].Sum = s.Sum
	os.WriteFile(p, []byte("new content"), 0o644)
	cur := stampOf(p)
	other[0].Mtime, other[0].Ctime, other[0].Ino, other[0].Size = cur.Mtime, cur.Ctime, cur.Ino, cur.Size
	if changed, _ := checkStamps(other, time.Now()); changed != p {
		t.Errorf("same stamp, other bytes: changed = %q", changed)
	}
	files := []fileStamp{cur}
	files[0].Sum, _ = fileSum(p)
	if changed, refresh := checkStamps(files, time.Now()); changed != "" || refresh {
		t.Errorf("unchanged recent file: changed %q, refresh %v", changed, refresh)
	}
	if changed, refresh := checkStamps(files, time.Now().Add(2*racyWindow)); changed != "" || !refresh || files[0].Sum != "" {
		t.Errorf("unchanged old file: changed %q, refresh %v, sum %q", changed, refresh, files[0].Sum)
	}
	os.Chtimes(p, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
	if changed, _ := checkStamps(files, time.Now()); changed != p {
		t.Errorf("modification time set back: changed = %q", changed)
	}
}
