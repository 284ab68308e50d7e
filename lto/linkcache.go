package lto

import (
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gozyme/gozyme/toolchains"
)

// The link cache keeps the native object of each rewrite job under a hash
// of everything the job's result depends on: the bitcode of its modules
// and the linker's changes to them, its options, the environment that
// steers the pipeline, the LLVM tools it runs and gozyme's own executable;
// and llvm-nm's listing of each module's bitcode under a hash of the
// bitcode. A link whose jobs all hit costs the scan, reading the inputs
// and the native link. It lives in $GOZYME_CACHE when that is an absolute
// path, else in gozyme/link under the user's cache directory;
// GOZYME_CACHE=off (or 0) turns it off, and so does GOZYME_KEEP_TEMPS.
// Entries are written to a temporary file and renamed into place, so
// readers see whole entries or none; past cacheLimit bytes the least
// recently used go, checked once per link that stored an object
// (rewriteAll).

// cacheFormat changes whenever what a key covers changes.
const cacheFormat = "gozyme link cache 3"

// cacheTools are the tools whose identity goes into every key.
var cacheTools = []string{"clang", "opt", "llvm-dis", "llvm-extract", "llvm-link", "llvm-as", "llc"}

// cacheEnv are the environment variables that change a job's result (the
// tools found on PATH are in the key as toolIdentity gives them); they are
// read by ConfigFromEnv, into Config.cacheEnv.
var cacheEnv = []string{"GOZYME_AD_STAGE", "GOZYME_LLVM_BIN"}

var (
	selfOnce sync.Once
	selfID   string
)

// selfIdentity identifies gozyme's running executable: its Go build ID
// (which changes with any of its inputs), else the hash of its bytes; ""
// if neither can be read: then nothing is cached.
func selfIdentity() string {
	selfOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			return
		}
		if f, err := elf.Open(exe); err == nil {
			if sec := f.Section(".note.go.buildid"); sec != nil {
				if data, err := sec.Data(); err == nil && len(data) > 16 {
					selfID = "go build id " + string(data)
				}
			}
			f.Close()
			if selfID != "" {
				return
			}
		}
		f, err := os.Open(exe)
		if err != nil {
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err == nil {
			selfID = hex.EncodeToString(h.Sum(nil))
		}
	})
	return selfID
}

// toolIdentity identifies an LLVM tool by path, size and modification time.
func toolIdentity(tools toolchains.Config, name string) string {
	p, err := tools.Tool(name)
	if err != nil {
		return name + ": none"
	}
	st, err := os.Stat(p)
	if err != nil {
		return name + ": none"
	}
	return fmt.Sprintf("%s %s %d %d", name, p, st.Size(), st.ModTime().UnixNano())
}

// symbolsKey is the cache key of llvm-nm's listing of an input's bitcode,
// "" when the cache (in dir) is off.
func symbolsKey(tools toolchains.Config, dir string, in *Input) string {
	if dir == "" || selfIdentity() == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s symbols\x00%s\x00%s\x00", cacheFormat, selfIdentity(), toolIdentity(tools, "llvm-nm"))
	writeBytes(h, in.bitcodeDigest())
	return hex.EncodeToString(h.Sum(nil))
}

// jobKey is the cache key of a job, "" when it cannot be formed.
func jobKey(cfg Config, job RewriteJob) string {
	self := selfIdentity()
	if self == "" {
		return ""
	}
	h := sha256.New()
	field := func(s string) { fmt.Fprintf(h, "%d:%s\x00", len(s), s) }
	field(cacheFormat)
	field(self)
	for _, t := range cacheTools {
		field(toolIdentity(cfg.Tools, t))
	}
	for _, e := range cfg.cacheEnv {
		field(e)
	}
	field(job.OptLevel)
	field(fmt.Sprint(job.Anchor, len(job.CC1Args), len(job.Modules)))
	for _, a := range job.CC1Args {
		field(a)
	}
	if c := job.Cut; c != nil {
		// The cut depends on the native objects' symbols too.
		field(fmt.Sprint("cut", len(c.Native), len(c.Stubs)))
		for _, n := range sortedKeys(c.Native) {
			field(n)
		}
		for _, n := range c.Stubs {
			field(n)
		}
		field(fmt.Sprint("adaptable", len(c.Adaptable)))
		for _, n := range sortedKeys(c.Adaptable) {
			field(n)
		}
	}
	for _, m := range job.Modules {
		field(m.Origin)
		field(fmt.Sprint(m.OptNone))
		if m.Digest != nil {
			writeBytes(h, m.Digest)
		} else {
			sum := sha256.Sum256(m.Bitcode)
			writeBytes(h, sum[:])
		}
		field(fmt.Sprint(len(m.Discard)))
		for _, k := range sortedKeys(m.Discard) {
			field(k)
		}
		field(fmt.Sprint(len(m.Rename)))
		for _, k := range sortedKeys(m.Rename) {
			field(k)
			field(m.Rename[k])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func writeBytes(h hash.Hash, b []byte) {
	fmt.Fprintf(h, "%d:", len(b))
	h.Write(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// cachedRewrite is rewriteObject behind the link cache (cfg.CacheDir): a
// hit copies the cached object to job.OutPath, a miss runs the job and
// stores its object (and counts it in stored).
func cachedRewrite(ctx context.Context, cfg Config, job RewriteJob, stored *atomic.Int32) error {
	dir := cfg.CacheDir
	key := ""
	if dir != "" && !job.PrintTypes { // a hit would print nothing
		key = jobKey(cfg, job)
	}
	if key == "" {
		return rewriteObject(ctx, job)
	}
	var data []byte
	hit := false
	timeStage(ctx, "cache", func() error {
		data, hit = cacheGet(dir, key, ".o")
		if hit {
			hit = os.WriteFile(job.OutPath, data, 0o644) == nil
		}
		return nil
	})
	if hit {
		if cfg.Tools.Verbose {
			fmt.Fprintf(os.Stderr, "gozyme: %s: reusing %s\n", job.Origin(), cacheEntry(dir, key, ".o"))
		}
		return nil
	}
	if err := rewriteObject(ctx, job); err != nil {
		return err
	}
	if data, err := os.ReadFile(job.OutPath); err == nil {
		cachePut(ctx, dir, key, ".o", data)
		stored.Add(1)
	}
	return nil
}

// cacheLimit is the cache's size above which storing an entry removes the
// least recently used ones, down to three quarters of it.
var cacheLimit int64 = 2 << 30

// trimCache removes the least recently used files of dir (by modification
// time, which a hit renews) while it holds more than limit bytes.
func trimCache(dir string, limit int64) {
	type file struct {
		path string
		size int64
		used time.Time
	}
	var files []file
	var total int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			files = append(files, file{p, info.Size(), info.ModTime()})
			total += info.Size()
		}
		return nil
	})
	if total <= limit {
		return
	}
	sort.Slice(files, func(i, j int) bool { return files[i].used.Before(files[j].used) })
	for _, f := range files {
		if total <= limit/4*3 {
			break
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}

// cacheEntry is the file of an entry of the cache in dir.
func cacheEntry(dir, key, suffix string) string {
	return filepath.Join(dir, key[:2], key+suffix)
}

// cacheGet reads an entry of the cache in dir ("": off).
func cacheGet(dir, key, suffix string) ([]byte, bool) {
	if key == "" || dir == "" {
		return nil, false
	}
	entry := cacheEntry(dir, key, suffix)
	data, err := os.ReadFile(entry)
	if err != nil {
		return nil, false
	}
	now := time.Now()
	os.Chtimes(entry, now, now) // recently used: trimmed last
	return data, true
}

// cachePut writes an entry: a temporary file in its directory, renamed
// into place. Failing to cache is harmless (told under GOZYME_VERBOSE).
func cachePut(ctx context.Context, dir, key, suffix string, data []byte) {
	if key == "" || dir == "" {
		return
	}
	entry := cacheEntry(dir, key, suffix)
	if err := writeAtomic(entry, data); err != nil && toolchains.ConfigOf(ctx).Verbose {
		fmt.Fprintf(os.Stderr, "gozyme: not cached: %v\n", err)
	}
}

// writeAtomic writes data to path through a temporary file renamed into
// place, so readers see the old file or the whole new one.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
