package lto

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestMain keeps the tests, whose rewrites are often fakes, out of the
// user's link cache.
func TestMain(m *testing.M) {
	os.Setenv("GOZYME_CACHE", "off")
	os.Exit(m.Run())
}

// TestLinkCache: a second identical job is answered from the cache with
// the same bytes; a job whose bitcode, options or linker edits differ
// runs; GOZYME_CACHE=off runs every job.
func TestLinkCache(t *testing.T) {
	t.Setenv("GOZYME_CACHE", t.TempDir())
	runs := 0
	saved := rewriteObject
	defer func() { rewriteObject = saved }()
	rewriteObject = func(_ context.Context, job RewriteJob) error {
		runs++
		return os.WriteFile(job.OutPath, append([]byte("object of "), job.Modules[0].Bitcode...), 0o644)
	}
	dir := t.TempDir()
	job := func(bc, level string, discard map[string]bool) RewriteJob {
		return RewriteJob{
			Modules:  []Module{{Bitcode: []byte(bc), Origin: "a.o", Discard: discard}},
			OptLevel: level,
			TempDir:  dir,
			OutPath:  filepath.Join(dir, "out.o"),
		}
	}
	link := func(j RewriteJob) []byte {
		t.Helper()
		os.Remove(j.OutPath)
		if err := cachedRewrite(context.Background(), ConfigFromEnv(), j, new(atomic.Int32)); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(j.OutPath)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	first := link(job("bc1", "2", nil))
	if again := link(job("bc1", "2", nil)); runs != 1 || !bytes.Equal(first, again) {
		t.Fatalf("identical job: %d runs (want 1), same bytes %v", runs, bytes.Equal(first, again))
	}
	for i, j := range []RewriteJob{job("bc2", "2", nil), job("bc1", "3", nil), job("bc1", "2", map[string]bool{"g": true})} {
		before := runs
		link(j)
		if runs != before+1 {
			t.Errorf("changed job %d answered from the cache", i)
		}
	}
	t.Setenv("GOZYME_CACHE", "off")
	before := runs
	link(job("bc1", "2", nil))
	if runs != before+1 {
		t.Errorf("GOZYME_CACHE=off: answered from the cache")
	}
}

// TestTrimCache: past the limit, the least recently used files go first,
// down to three quarters of the limit.
func TestTrimCache(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	for i := 0; i < 8; i++ {
		p := filepath.Join(dir, "ab", fmt.Sprintf("%d.o", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, make([]byte, 100), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, base, base.Add(time.Duration(i)*time.Minute))
	}
	trimCache(dir, 1000)
	if n, _ := filepath.Glob(filepath.Join(dir, "ab", "*")); len(n) != 8 {
		t.Fatalf("under the limit: %d files left, want 8", len(n))
	}
	trimCache(dir, 600) // 800 bytes: down to 450, the 4 oldest go
	for i := 0; i < 8; i++ {
		_, err := os.Stat(filepath.Join(dir, "ab", fmt.Sprintf("%d.o", i)))
		if gone := err != nil; gone != (i < 4) {
			t.Errorf("file %d: removed %v", i, gone)
		}
	}
}
