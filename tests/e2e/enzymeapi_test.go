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
	{"batch", []string{"batch.c"}},
	{"iter", []string{"iter.c"}},
	{"cxx_interface", []string{"cxx_interface.cpp"}},
	{"error_estimate", []string{"error_estimate.c"}},
	{"virtual_shadow", []string{"virtual_shadow.cpp"}},
	{"sparse", []string{"sparse.cpp"}},
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

// TestEnzymeAPIDiagnostics: errors name the entry-point call (its line
// with -g, else the function holding it), the construct in the source's
// terms (C++ names demangled), and what to do; LLVM IR only with
// GOZYME_VERBOSE=1; an unsupported entry point is an error naming it, not
// an undefined reference.
func TestEnzymeAPIDiagnostics(t *testing.T) {
	setup(t)
	for _, c := range []struct {
		src, flag string
		verbose   bool
		want      []string
	}{
		{"no_rule.c", "-g", false, []string{"no_rule.c:5:", "cannot differentiate 'f': no derivative for the call to 'mystery'",
			"give it a custom derivative", "no_rule.c:8:", "note: in the derivative for the __enzyme_autodiff call in 'main'"}},
		{"no_rule.c", "-O2", false, []string{"cannot differentiate 'f'", "note: in the derivative for the __enzyme_autodiff call in 'main' (build with -g for its line)"}},
		{"no_rule.c", "-g", true, []string{"LLVM IR: ", "@mystery("}},
		{"unknown_pointer.c", "-g", false, []string{"unknown_pointer.c:7:", "cannot differentiate the __enzyme_autodiff call in 'main'",
			"a function pointer read from memory at run time", "pass the function itself"}},
		{"unsupported.c", "-g", false, []string{"unsupported.c:5:", "__enzyme_fwdsplit (split forward mode) is not supported by gozyme"}},
		{"unsupported_truncate.c", "-g", false, []string{"unsupported_truncate.c:7:", "__enzyme_truncate (floating-point truncation) is not supported by gozyme"}},
		{"error_custom.c", "-g", false, []string{"error_custom.c:7:", "cannot differentiate 'f': 'g' has a custom derivative, which gives tangents, not error bounds",
			"note: in the derivative for the __enzyme_error_estimate call in 'main'"}},
		{"cxx_names.cpp", "-g", false, []string{"cannot differentiate 'geo::area(double)'", "the call to 'mystery(double)'"}},
	} {
		c := c
		t.Run(c.src+c.flag+map[bool]string{true: "-verbose"}[c.verbose], func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(copyProject(t, "enzymeapi"), "diag")
			driver := "gozyme-cc"
			if strings.HasSuffix(c.src, ".cpp") {
				driver = "gozyme-c++"
			}
			env := toolEnv()
			if c.verbose {
				env = toolEnv("GOZYME_VERBOSE=1")
			}
			_, stderr, err := runErr(dir, env, tool(driver), c.flag, c.src, "-o", "prog")
			if err == nil {
				t.Fatalf("%s %s built; want an error", driver, c.src)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("error lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr, "undefined reference") {
				t.Errorf("an undefined reference instead of gozyme's error:\n%s", stderr)
			}
			if !c.verbose && strings.Contains(stderr, "LLVM IR") {
				t.Errorf("LLVM IR without GOZYME_VERBOSE:\n%s", stderr)
			}
		})
	}
}
