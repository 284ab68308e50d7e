package lto

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"syscall"
	"time"
)

// A fileLog records every file a link's input resolution consults (the
// inputs it reads, the libraries it finds, and each search-directory
// candidate it looks for and does not find) with a stamp taken before the
// file is read, so that a later link can tell, without reading them,
// whether anything resolution depends on changed (relink.go). A nil
// *fileLog records nothing.
type fileLog struct {
	start   time.Time
	stamps  []fileStamp
	seen    map[string]bool
	partial bool // resolution read a file the log cannot follow (a thin archive's members)
}

// fileStamp is what a file looked like when resolution consulted it.
// Present false records a path that did not exist (or could not be
// stat'ed): a library candidate that must still be missing. Sum, the
// sha256 of the file's bytes, is set where the stamp cannot be trusted: a
// file changed within racyWindow of the link could change again within
// the same timestamp tick, leaving its stamp as it was.
type fileStamp struct {
	Path    string
	Present bool   `json:",omitempty"`
	Mode    uint32 `json:",omitempty"` // file type bits only
	Size    int64  `json:",omitempty"`
	Mtime   int64  `json:",omitempty"`
	Ctime   int64  `json:",omitempty"`
	Ino     uint64 `json:",omitempty"`
	Dev     uint64 `json:",omitempty"`
	Sum     string `json:",omitempty"`
}

// racyWindow is how recent a file's change may be for its stamp to be
// trusted: timestamps are as coarse as the kernel's clock tick (or a
// second or two on some filesystems).
const racyWindow = 3 * time.Second

func newFileLog() *fileLog {
	return &fileLog{start: time.Now(), seen: map[string]bool{}}
}

// stat is os.Stat, with path noted.
func (l *fileLog) stat(path string) (os.FileInfo, error) {
	l.note(path)
	return os.Stat(path)
}

// note records path's stamp, once; call it before reading the file.
func (l *fileLog) note(path string) {
	if l == nil || l.seen[path] {
		return
	}
	l.seen[path] = true
	st := stampOf(path)
	if st.Present && st.racy(l.start) {
		sum, ok := fileSum(path)
		if !ok {
			l.partial = true
		}
		st.Sum = sum
	}
	l.stamps = append(l.stamps, st)
}

// cannotFollow marks the log incomplete: no relink manifest is written.
func (l *fileLog) cannotFollow() {
	if l != nil {
		l.partial = true
	}
}

// stampOf stats path (following symlinks, as the readers do).
func stampOf(path string) fileStamp {
	s := fileStamp{Path: path}
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil {
		return s
	}
	s.Present = true
	s.Mode = st.Mode & syscall.S_IFMT
	s.Size = st.Size
	s.Mtime = st.Mtim.Nano()
	s.Ctime = st.Ctim.Nano()
	s.Ino = uint64(st.Ino)
	s.Dev = uint64(st.Dev)
	return s
}

// racy reports a stamp too recent, at time now, to be trusted alone.
func (s fileStamp) racy(now time.Time) bool {
	limit := now.Add(-racyWindow).UnixNano()
	return s.Mode == syscall.S_IFREG && (s.Mtime >= limit || s.Ctime >= limit)
}

// sameStamp compares everything but the content sum.
func (s fileStamp) sameStamp(o fileStamp) bool {
	s.Sum, o.Sum = "", ""
	return s == o
}

// fileSum is the hex sha256 of a file's bytes; ok is false when it cannot
// be read.
func fileSum(path string) (sum string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}
