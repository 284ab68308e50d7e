package ad

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/gozyme/gozyme/toolchains"
)

// The same module differentiates to the same IR every time: the link cache
// keys on its input, reproducible builds compare outputs, and a derivative
// that changes from run to run (Go's random map order leaking into the
// order of emitted instructions) hides what changed. Each program goes
// through the pre-AD pipeline once and is differentiated three times from
// fresh loads of the same bitcode.
func TestDeterministicDerivatives(t *testing.T) {
	t.Parallel()
	if _, err := toolchains.Tool("clang"); err != nil {
		t.Skip(err)
	}
	const inc = "/usr/include/x86_64-linux-gnu"
	for _, tc := range []struct {
		name, driver, file, prelude string
		parts                       []string
		flags                       []string
	}{
		{"blas", "clang", "prog.c", "", []string{"blas_decls.h", "blas_ref.c", "blas_rules.c"}, nil},
		{"lapack", "clang", "prog.c", "", []string{"lapack_rules.c"}, []string{"-I" + inc, "-DLAPACK_AUX"}},
		{"typed_reloads", "clang", "prog.c", memoryPrelude, []string{"typed_reloads.c"}, nil},
		{"private_contents", "clang++", "prog.cc", cxxPrelude, []string{"private_contents.cc"}, nil},
		{"tape_stack", "clang", "prog.c", "", []string{"tape_stack.c"}, nil},
		{"split_mode", "clang", "prog.c", memoryPrelude, []string{"split_mode.c"}, nil},
		{"loop_records", "clang", "prog.c", loopRunPrelude, []string{"loop_record_kernels.c"}, nil},
		{"quiet_split_reloads", "clang", "prog.c", checkPrelude, []string{"quiet_split_reloads.c"}, nil},
		{"hash_map", "clang++", "prog.cc", "#define KEY long\n#define K(i) (100 * (i) + 7)\n", []string{"hash_map.cc"}, nil},
	} {
		tc := tc
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := tc.prelude
			for _, p := range tc.parts {
				src += testdataC(t, p)
			}
			dir := t.TempDir()
			bc := compileBitcode(t, dir, tc.driver, tc.file, src, "2", tc.flags...)
			opt := preADFile(t, dir, bc, "2")
			var first []byte
			for i := 0; i < 3; i++ {
				m := loadIR(t, opt)
				opts := Options{}
				if _, err := Differentiate(m, opts); NeedsRuntimeActivity(err) {
					m = loadIR(t, opt)
					opts.RuntimeActivity = true
					_, err = Differentiate(m, opts)
					if err != nil {
						t.Fatal(err)
					}
				} else if err != nil {
					t.Fatal(err)
				}
				ll := filepath.Join(dir, fmt.Sprintf("ad%d.ll", i))
				if err := irutil.WriteText(m, ll); err != nil {
					t.Fatal(err)
				}
				out, err := os.ReadFile(ll)
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					first = out
					continue
				}
				if !bytes.Equal(out, first) {
					t.Fatalf("differentiating the same module again gave other IR; first difference:\n%s", firstDifference(first, out))
				}
			}
		})
	}
}

// firstDifference shows the first line where a and b differ.
func firstDifference(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(la) && i < len(lb); i++ {
		if !bytes.Equal(la[i], lb[i]) {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("one is a prefix of the other (%d and %d lines)", len(la), len(lb))
}
