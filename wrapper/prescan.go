package wrapper

import (
	"strings"

	"github.com/gozyme/gozyme/lto"
)

// linkScan is what one read of a link line's inputs found (scanLink).
type linkScan struct {
	plain   bool // certainly no Enzyme call: clang links it unchanged, without gozyme-ld
	fortran bool // an object or archive holds Fortran code (fortranMarkers)
}

// scanLink reads the objects, archives, input scripts and -l libraries a
// link command line names (found in its -L directories or clang's own
// library directories) once. A link it finds plain runs clang unchanged,
// so it costs only this scan; anything the scan cannot settle goes to
// gozyme-ld. Fortran code is looked for only by gozyme-cc and gozyme-c++
// with flang installed (see fortranLinkArgs).
func (d *driver) scanLink(cmd *Command) linkScan {
	dirs, ok := d.libraryDirs(cmd)
	var also [][]byte
	if d.needsFortranScan() {
		also = fortranMarkers
	}
	roots, fortran := lto.ScanInputs(linkerArgs(cmd, dirs), also)
	return linkScan{plain: ok && !roots, fortran: fortran}
}

// linkerArgs is the part of an ld command line that names a link's inputs
// and where -l libraries are found: the linker inputs of cmd, its -L
// directories and then dirs.
func linkerArgs(cmd *Command, dirs []string) []string {
	var ld []string
	for _, it := range cmd.Items {
		a := it.Args[0]
		switch it.Kind {
		case LinkerInput:
			switch {
			case strings.HasPrefix(a, "-Wl,"):
				ld = append(ld, strings.Split(a[len("-Wl,"):], ",")...)
			case len(it.Args) > 1 && a == "-l":
				ld = append(ld, "-l"+it.Args[1])
			case len(it.Args) > 1:
				ld = append(ld, it.Args[1]) // -Xlinker, --for-linker
			default:
				ld = append(ld, a) // a file or -lNAME
			}
		case Flag:
			switch {
			case a == "-L" && len(it.Args) > 1:
				ld = append(ld, "-L"+it.Args[1])
			case strings.HasPrefix(a, "-L"):
				ld = append(ld, a)
			case a == "-static" || a == "-nostdlib":
				ld = append(ld, a)
			}
		}
	}
	for _, dir := range dirs {
		ld = append(ld, "-L"+dir)
	}
	return ld
}

// libraryDirs returns the directories clang gives the linker after the -L
// ones (-print-search-dirs), asked once per clang and target options (see
// askClang).
func (d *driver) libraryDirs(cmd *Command) ([]string, bool) {
	var args []string
	for _, it := range cmd.Items {
		if it.Kind != Flag {
			continue
		}
		for _, p := range []string{"-B", "--prefix", "--gcc-toolchain", "-gcc-toolchain", "-target", "--target", "--sysroot", "-m", "-static", "-shared", "-nostd", "-rtlib", "--rtlib", "-stdlib", "--stdlib"} {
			if strings.HasPrefix(it.Args[0], p) {
				args = append(args, it.Args...)
				break
			}
		}
	}
	args = append(args, "-print-search-dirs")
	answer := d.askClang(args, func(out string) string {
		var dirs string
		for _, l := range strings.Split(out, "\n") {
			if rest, found := strings.CutPrefix(l, "libraries: ="); found {
				dirs = rest
			}
		}
		return dirs
	})
	if answer == "" {
		return nil, false
	}
	return strings.Split(answer, ":"), true
}
