package lto

import (
	"os"
	"syscall"
)

// mapMin is the size from which readInput maps a file instead of reading
// it: an archive such as libgcc.a (3 MB, named twice on every C link) is
// read for its symbol index and the members the link loads, a few pages.
const mapMin = 256 << 10

// readInput returns the contents of a link input: a private, writable
// mapping of a large file (pages are read when touched; writes stay in
// this process, and the mapping lives as long as the process, as the
// link's inputs do), else the bytes read.
func readInput(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if size := st.Size(); st.Mode().IsRegular() && size >= mapMin && size == int64(int(size)) {
		if data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE); err == nil {
			return data, nil
		}
	}
	return os.ReadFile(path)
}
