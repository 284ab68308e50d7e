package ad

import (
	"os/exec"
	"strings"
	"testing"
)

// TestHeaderDataCopy: a record of an integer header with its doubles after
// it in one allocation, copied by a byte count, whole or as header then
// data through &header[1]. The copy's pointers are cast from the header's
// type, which holds integers only: taken as what the bytes hold, the
// doubles' derivatives were dropped without a word (gradient 0 at -O0).
// Now the derivative is exact, or the link or the program stops naming
// the copy; never a wrong gradient. Split, -O1 and above type the data by
// its use and are exact.
func TestHeaderDataCopy(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "header_data_copy.c")
	for _, level := range optLevels {
		for _, flags := range [][]string{nil, {"-DWHOLE_BLOCK"}} {
			name := "-O" + level + " " + strings.Join(flags, " ")
			exe, err := tryBuildC(t, src, level, flags...)
			if err != nil {
				if !strings.Contains(err.Error(), "cannot tell which bytes of") {
					t.Errorf("%s: %v", name, err)
				}
				continue
			}
			out, err := exec.Command(exe).CombinedOutput()
			switch {
			case err == nil && strings.HasPrefix(string(out), "ok"):
			case err != nil && strings.Contains(string(out), "cannot tell what the bytes of a memory copy"):
				if flags == nil && level != "0" {
					t.Errorf("%s: stopped where the data is typed by its use: %s", name, out)
				}
			default:
				t.Errorf("%s: %v: %s", name, err, out)
			}
		}
	}
}

// TestHeaderDataCopyThroughInt: the same block copied through int
// pointers: exact, or stopped naming the copy (testdata/
// header_data_copy_int.c); an int pointer's type, like the header's
// struct, says nothing of the bytes past it.
func TestHeaderDataCopyThroughInt(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "header_data_copy_int.c")
	for _, level := range optLevels {
		exe, err := tryBuildC(t, src, level)
		if err != nil {
			if !strings.Contains(err.Error(), "cannot tell which bytes of") {
				t.Errorf("-O%s: %v", level, err)
			}
			continue
		}
		out, err := exec.Command(exe).CombinedOutput()
		if !(err == nil && strings.HasPrefix(string(out), "ok")) && !(err != nil && strings.Contains(string(out), "cannot tell what the bytes of a memory copy")) {
			t.Errorf("-O%s: %v: %s", level, err, out)
		}
	}
}
