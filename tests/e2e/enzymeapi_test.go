package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// enzymeAPIPrograms are the self-checking programs of
// tests/projects/enzymeapi, each with its sources: parts of Enzyme's
// interface beyond __enzyme_autodiff with markers by value. Each prints a
// line per check and "failures 0" when every derivative matches its
// analytic value.
var enzymeAPIPrograms = []struct {
	name string
	srcs []string
}{
	{"inactive_attr", []string{"inactive_attr.c", "inactive_other.c"}},
	{"function_like", []string{"function_like.c"}},
	{"allocation_like", []string{"allocation_like.c"}},
	{"markers", []string{"markers.c"}},
	{"library_calls", []string{"library_calls.c"}},
	{"cxx_interface", []string{"cxx_interface.cpp"}},
}

// TestEnzymeAPI builds each program of tests/projects/enzymeapi with
// gozyme-cc (gozyme-c++ for C++) at -O0 and -O2, without warnings, and
// runs it.
func TestEnzymeAPI(t *testing.T) {
	setup(t)
	for _, p := range enzymeAPIPrograms {
		p := p
		for _, opt := range []string{"-O0", "-O2"} {
			opt := opt
			t.Run(p.name+opt, func(t *testing.T) {
				t.Parallel()
				dir := copyProject(t, "enzymeapi")
				driver, args := "gozyme-cc", []string{opt}
				if strings.HasSuffix(p.srcs[0], ".cpp") {
					driver, args = "gozyme-c++", append(args, "-std=c++17")
				}
				args = append(append(args, p.srcs...), "-o", p.name, "-lm")
				_, stderr, err := runErr(dir, toolEnv(), tool(driver), args...)
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", driver, strings.Join(args, " "), err, stderr)
				}
				if strings.Contains(stderr, "warning") {
					t.Errorf("the build warned:\n%s", stderr)
				}
				out := run(t, dir, nil, filepath.Join(dir, p.name))
				if !strings.HasSuffix(out, "failures 0\n") {
					t.Errorf("%s %s:\n%s", p.name, opt, out)
				}
			})
		}
	}
}
