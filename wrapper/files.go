package wrapper

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gozyme/gozyme/lto"
)

// markObject sets SHF_EXCLUDE on the embedded-bitcode sections of an
// object clang wrote, so linkers drop them. Outputs that are not regular
// ELF files (/dev/null, standard output, bitcode) are left alone. If
// marking fails the object is removed: no half-made output stays behind.
func markObject(path string) error {
	if path == "" || path == "-" || !isRegularELF(path) {
		return nil
	}
	if err := lto.MarkFatObject(path); err != nil {
		os.Remove(path)
		return fmt.Errorf("marking %s as a fat object: %v", path, err)
	}
	return nil
}

// isRegularELF reports whether path is a regular file holding ELF.
func isRegularELF(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && isELF(path)
}

func isELF(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && bytes.Equal(magic[:], []byte("\x7fELF"))
}

// tempDir is a temporary directory made on first use. With base set
// (lto.Config.KeepTemps, GOZYME_KEEP_TEMPS=DIR) it is made inside base
// and kept.
type tempDir struct {
	base string
	path string
	keep bool
}

// tempDir returns the invocation's temporary directory, not made yet.
func (d *driver) tempDir() *tempDir { return &tempDir{base: d.cfg.KeepTemps} }

func (t *tempDir) get() (string, error) {
	if t.path != "" {
		return t.path, nil
	}
	base := t.base
	if base != "" {
		if err := os.MkdirAll(base, 0o755); err != nil {
			return "", err
		}
		t.keep = true
	}
	p, err := os.MkdirTemp(base, "gozyme-cc-")
	if err != nil {
		return "", err
	}
	t.path = p
	return p, nil
}

func (t *tempDir) remove() {
	if t.path != "" && !t.keep {
		os.RemoveAll(t.path)
	}
}

// maxArgBytes is the command-line size above which a rewritten command
// line goes to clang in a response file (the originals can come from huge
// Bazel @file.params).
const maxArgBytes = 128 << 10

// argsFile returns args, or a single @file holding them when they are too
// long for one command line.
func argsFile(args []string, tmp *tempDir) ([]string, error) {
	n := 0
	for _, a := range args {
		if a == "" {
			return args, nil // a response file cannot hold an empty argument
		}
		n += len(a) + 1
	}
	if n < maxArgBytes {
		return args, nil
	}
	dir, err := tmp.get()
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "args-*.rsp")
	if err != nil {
		return nil, err
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = QuoteGNU(a)
	}
	_, err = f.WriteString(strings.Join(quoted, "\n") + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return []string{"@" + f.Name()}, nil
}
