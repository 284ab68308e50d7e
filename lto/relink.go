package lto

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A relink with nothing changed skips input resolution, the bitcode reads
// and the link cache's per-job lookups: the link that differentiated
// writes a manifest, under a key of everything that is not a file (the
// command line, the configuration, gozyme's and the tools' identities, the
// working directory, the real linker's path), listing every file its
// resolution consulted with a stamp (fileLog: inputs, archives, shared
// libraries, input scripts, and each search-directory candidate it looked
// for, found or not) and the real linker's arguments, whose temporary
// files (rewritten objects, weakened copies, archive copies) it keeps in
// the cache by content. A later link with the same key whose files all
// have their stamps runs the real linker on those arguments at once: the
// slow path would resolve the same inputs, hit the cache for every job
// and run the same linker line, so the output is the same byte for byte.
// Any stamp that differs (a changed, added or removed file, a library
// appearing in an earlier search directory) sends the link the slow way,
// which writes a new manifest.

// relinkFormat changes whenever what a manifest means changes.
const relinkFormat = "gozyme relink 1"

// relinkManifest is what the link that differentiated recorded.
type relinkManifest struct {
	Format string
	Files  []fileStamp
	Args   []relinkArg       // the real linker's arguments
	Temps  map[string]string // temporary file name -> cache key of its bytes (suffix ".file")
	Rsp    bool              // the arguments go to the linker in a response file
}

// relinkArg is an argument of the real linker: a word as it is, or one
// of the link's temporary files, by name.
type relinkArg struct {
	Arg  string `json:",omitempty"`
	Temp string `json:",omitempty"`
}

// relink is one link's fast path: its manifest key and the log of the
// files its slow path consults.
type relink struct {
	cfg    Config
	realLD string
	key    string
	log    *fileLog
}

// newRelink returns the fast path of a link, nil where there is none (the
// link cache off, gozyme's identity unknown, types to print, temporary
// files to keep).
func newRelink(cfg Config, realLD string, args, expanded []string) *relink {
	if cfg.CacheDir == "" || cfg.PrintTypes || cfg.KeepTemps != "" {
		return nil
	}
	self := selfIdentity()
	cwd, err := os.Getwd()
	if self == "" || err != nil {
		return nil
	}
	h := sha256.New()
	field := func(s string) { fmt.Fprintf(h, "%d:%s\x00", len(s), s) }
	field(relinkFormat)
	field(self)
	field(cwd)
	field(realLD)
	field(cfg.OptLevel)
	field(cfg.ADStage)
	field(fmt.Sprint(cfg.WholeModule))
	for _, e := range cfg.cacheEnv {
		field(e)
	}
	for _, t := range append(append([]string(nil), cacheTools...), "llvm-nm") {
		field(toolIdentity(cfg.Tools, t))
	}
	field(fmt.Sprint(len(cfg.ObjectSources)))
	for _, k := range sortedKeys(cfg.ObjectSources) {
		field(k)
		field(cfg.ObjectSources[k])
	}
	for _, list := range [][]string{args, expanded} {
		field(fmt.Sprint(len(list)))
		for _, a := range list {
			field(a)
		}
	}
	rl := &relink{cfg: cfg, realLD: realLD, key: hex.EncodeToString(h.Sum(nil)), log: newFileLog()}
	rl.log.note(realLD) // its default search directories, its identity
	return rl
}

// fileLog is the log the slow path records into; nil for no fast path.
func (rl *relink) fileLog() *fileLog {
	if rl == nil {
		return nil
	}
	return rl.log
}

// replay runs the real linker as the manifest says when every file it
// lists is as it was; ok is false when the link must take the slow path.
func (rl *relink) replay(ctx context.Context) (code int, ok bool, err error) {
	if rl == nil {
		return 0, false, nil
	}
	dir, verbose := rl.cfg.CacheDir, rl.cfg.Tools.Verbose
	data, hit := cacheGet(dir, rl.key, ".relink")
	if !hit {
		return 0, false, nil
	}
	var m relinkManifest
	if json.Unmarshal(data, &m) != nil || m.Format != relinkFormat {
		return 0, false, nil
	}
	if changed, refresh := checkStamps(m.Files, time.Now()); changed != "" {
		if verbose {
			fmt.Fprintf(os.Stderr, "gozyme: relink: %s changed since this line's last link\n", changed)
		}
		return 0, false, nil
	} else if refresh {
		// The content sums matched and the stamps are old enough now to
		// be trusted alone.
		if data, err := json.Marshal(m); err == nil {
			cachePut(ctx, dir, rl.key, ".relink", data)
		}
	}
	args := make([]string, len(m.Args))
	for i, a := range m.Args {
		if a.Temp == "" {
			args[i] = a.Arg
			continue
		}
		p, err := useCached(dir, m.Temps[a.Temp])
		if err != nil {
			if verbose {
				fmt.Fprintf(os.Stderr, "gozyme: relink: %s: %v\n", a.Temp, err)
			}
			return 0, false, nil
		}
		args[i] = p
	}
	if verbose {
		fmt.Fprintf(os.Stderr, "gozyme: relink: nothing changed (%d files checked), reusing %s\n", len(m.Files), cacheEntry(dir, rl.key, ".relink"))
	}
	if m.Rsp {
		tmp, cleanup, err := rl.cfg.linkTempDir()
		if err != nil {
			return 1, true, err
		}
		defer cleanup()
		if args, err = linkerArgs(tmp, args, true); err != nil {
			return 1, true, err
		}
	}
	err = timeStage(ctx, "native link", func() error {
		var err error
		code, err = runLinker(rl.cfg.Tools, rl.realLD, args)
		return err
	})
	return code, true, err
}

// checkStamps compares each file with its stamp (and its content with its
// sum where it has one) and returns the first that changed, "" when none
// did; refresh reports sums dropped from files (in place) whose stamps
// are now old enough to be trusted.
func checkStamps(files []fileStamp, now time.Time) (changed string, refresh bool) {
	for i, s := range files {
		cur := stampOf(s.Path)
		if !cur.sameStamp(s) {
			return s.Path, false
		}
		if s.Sum == "" {
			continue
		}
		if sum, ok := fileSum(s.Path); !ok || sum != s.Sum {
			return s.Path, false
		}
		if !cur.racy(now) {
			files[i].Sum, refresh = "", true
		}
	}
	return "", refresh
}

// useCached returns the cache's file key, marked recently used: the real
// linker reads it where it is. Trimming takes the least recently used
// entries first, so it cannot take this one while the link runs; the
// entry is named by its content and never rewritten in place.
func useCached(dir, key string) (string, error) {
	if key == "" {
		return "", errors.New("no cached file")
	}
	entry := cacheEntry(dir, key, ".file")
	now := time.Now()
	return entry, os.Chtimes(entry, now, now)
}

// record writes the manifest of a link that differentiated and whose real
// linker succeeded on args (before linkerArgs), with its temporary files
// in tmp. Nothing is written when the file log is incomplete or an
// argument names a temporary file other than as a whole word.
func (rl *relink) record(ctx context.Context, tmp string, args []string, rsp bool) {
	if rl == nil || rl.log.partial {
		return
	}
	dir := rl.cfg.CacheDir
	m := relinkManifest{Format: relinkFormat, Files: rl.log.stamps, Temps: map[string]string{}, Rsp: rsp}
	prefix := tmp + string(filepath.Separator)
	for _, a := range args {
		name, isTemp := strings.CutPrefix(a, prefix)
		switch {
		case isTemp && name != "" && !strings.ContainsRune(name, filepath.Separator):
			if _, done := m.Temps[name]; !done {
				data, err := os.ReadFile(a)
				if err != nil {
					return
				}
				sum := sha256.Sum256(data)
				key := hex.EncodeToString(sum[:])
				if _, err := os.Stat(cacheEntry(dir, key, ".file")); err != nil {
					cachePut(ctx, dir, key, ".file", data)
				}
				m.Temps[name] = key
			}
			m.Args = append(m.Args, relinkArg{Temp: name})
		case strings.Contains(a, tmp):
			return // a temporary file inside a word: not replayed
		default:
			m.Args = append(m.Args, relinkArg{Arg: a})
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		return
	}
	cachePut(ctx, dir, rl.key, ".relink", data)
}

// linkerArgs is the real linker's command line for args: args, or a
// response file in tmp holding them when the link's own line used one.
func linkerArgs(tmp string, args []string, rsp bool) ([]string, error) {
	if !rsp {
		return args, nil
	}
	path := filepath.Join(tmp, "link.rsp")
	var b strings.Builder
	for _, a := range args {
		b.WriteString(QuoteResponseArg(a))
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	return []string{"@" + path}, nil
}
