package wrapper

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// gozyme's own C++ header <enzyme/enzyme> (Enzyme's C++ interface over the
// C entry points). It travels inside the commands and is written, once per
// content, under the user's cache directory, which compiles see after
// their own include directories (-idirafter): a project that brings its
// own <enzyme/enzyme> keeps it.
//
//go:embed include
var headers embed.FS

// headerDir returns the directory holding <enzyme/enzyme> under base
// (Config.IncludeDir; "": gozyme under the user's cache directory),
// writing it on first use.
func headerDir(base string) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(headers, "include", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := headers.ReadFile(p)
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
		return err
	})
	if err != nil {
		return "", err
	}
	if base == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		base = filepath.Join(cache, "gozyme")
	}
	dir := filepath.Join(base, "include-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, "enzyme", "enzyme")); err == nil {
		return dir, nil
	}
	// Written beside, then renamed into place: concurrent compiles see
	// the whole directory or none.
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(base, "include-tmp-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	err = fs.WalkDir(headers, "include", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("include", p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(tmp, rel), 0o755)
		}
		data, err := headers.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, rel), data, 0o644)
	})
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "enzyme", "enzyme")); serr == nil {
			return dir, nil // another compile put it there first
		}
		return "", err
	}
	return dir, nil
}

// headerFlags are the options that put <enzyme/enzyme> on the include
// path; none (and no error) when it cannot be written: a source that
// includes it then fails to compile, naming the header. The directory is
// found (and written) once per command.
func (d *driver) headerFlags() []string {
	d.hdrOnce.Do(func() {
		if dir, err := headerDir(d.env.IncludeDir); err == nil {
			d.hdr = []string{"-idirafter", dir}
		}
	})
	return d.hdr
}
