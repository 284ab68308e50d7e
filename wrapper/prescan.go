package wrapper

import (
	"os/exec"
	"strings"

	"github.com/gozyme/gozyme/lto"
)

// plainLink reports that a link command line certainly calls no Enzyme
// entry point: no object, archive, input script or -l library it names
// (found in its -L directories or clang's own library directories)
// mentions one. Such a link runs clang unchanged, without gozyme-ld, so it
// costs only this scan; anything the scan cannot settle goes to gozyme-ld.
func (d *driver) plainLink(cmd *Command) bool {
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
	dirs, ok := d.libraryDirs(cmd)
	if !ok {
		return false
	}
	for _, dir := range dirs {
		ld = append(ld, "-L"+dir)
	}
	return !lto.MayHaveRoots(ld)
}

// libraryDirs returns the directories clang gives the linker after the -L
// ones (-print-search-dirs), asked once per clang and target options and
// then cached like -print-prog-name answers.
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
	answer, ok := cachedProgName(d.clang, args)
	if !ok {
		out, err := exec.Command(d.clang, args...).Output()
		if err != nil {
			return nil, false
		}
		for _, l := range strings.Split(string(out), "\n") {
			if rest, found := strings.CutPrefix(l, "libraries: ="); found {
				answer = rest
			}
		}
		if answer == "" {
			return nil, false
		}
		storeProgName(d.clang, args, answer)
	}
	return strings.Split(answer, ":"), true
}
