package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCustomDerivatives builds tests/projects/custom: a straight-through
// estimator given by the enzyme("gradient") attribute in a header, its rule
// in a static library; a pointer rule with a tape in Enzyme's registration
// form, called in a loop; a rule for a function compiled by gcc (no
// bitcode), called in recursion; forward-mode rules (fwd/); rules declared
// only in a header the function's TU does not include (decl/, and C++ in
// cxxdecl/); rules for
// functions returning pointers (ptr/). The programs
// check each derivative and how often each rule ran; this test checks
// their output.
func TestCustomDerivatives(t *testing.T) {
	setup(t)
	dir := copyProject(t, "custom")
	env := toolEnv("CC=gozyme-cc", "CXX=gozyme-c++")
	_, stderr, err := runErr(dir, env, "make")
	if err != nil {
		t.Fatalf("make: %v\n%s", err, stderr)
	}
	if strings.Contains(stderr, "warning") {
		t.Errorf("the build warned (the enzyme attribute must compile silently):\n%s", stderr)
	}
	out := run(t, dir, env, filepath.Join(dir, "app", "app"))
	for _, want := range []string{"ste_calls 5 5", "sumcubes_aug_calls 3 3", "sumcubes_rev_calls 3 3", "ext_cube_rev_calls 3 3", "failures 0"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count("\n"+out, "\nste "); n != 5 {
		t.Errorf("want 5 ste lines:\n%s", out)
	}

	// Forward-mode rules (attribute on a definition, registration global
	// for a pointer function); rules given only in a header that the
	// function's own TU does not include (the caller's TU registers them);
	// rules for functions returning pointers (with and without a tape).
	for prog, wants := range map[string][]string{
		"fwd/fwd":         {"stair_fwd_calls 5 5", "square_all_fwd_calls 1 1", "stair_fwd_calls 8 8", "failures 0"},
		"decl/decl":       {"snap_grad_calls 4 4", "snap_fwd_calls 4 4", "halve_grad_calls 4 4", "failures 0"},
		"cxxdecl/cxxdecl": {"snap_grad_calls 3", "failures 0"},
		"ptr/ptr":         {"row_aug_calls 3 3", "row_rev_calls 3 3", "scaled_aug_calls 1 1", "scaled_rev_calls 1 1", "failures 0"},
	} {
		out := run(t, dir, env, filepath.Join(dir, prog))
		for _, want := range wants {
			if !strings.Contains(out, want+"\n") {
				t.Errorf("%s: output lacks %q:\n%s", prog, want, out)
			}
		}
	}
}

// TestCustomDerivativeErrors: a rule that does not fit its function, and two
// rules for one function (also from declarations in different TUs), stop
// the link naming them.
func TestCustomDerivativeErrors(t *testing.T) {
	setup(t)
	dir := copyProject(t, "custom")
	env := toolEnv("CC=gozyme-cc")
	for target, wants := range map[string][]string{
		"bad/mismatch":  {"custom derivative 'f_rev' of 'f'", "does not fit", "must take 2"},
		"bad/duplicate": {"two different gradient rules for 'f'", "'rev_a'", "'rev_b'"},
		"bad/conflict":  {"two different gradient rules for 'g'", "'rule_a' (enzyme(\"gradient\", ...) on a declaration seen by bad/conflict_a.c)", "'rule_b' (bad/conflict_b.c:5)"},
	} {
		_, stderr, err := runErr(dir, env, "make", target)
		if err == nil {
			t.Errorf("make %s succeeded; want a link error", target)
			continue
		}
		for _, w := range wants {
			if !strings.Contains(stderr, w) {
				t.Errorf("make %s: error lacks %q:\n%s", target, w, stderr)
			}
		}
	}
}
