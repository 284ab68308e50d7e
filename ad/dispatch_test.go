package ad

import (
	"os/exec"
	"strings"
	"testing"
)

// TestIndirectCallsRun: callbacks, tables indexed at run time, pointers to
// libm functions and a pointer chosen by a branch, at every level (-O0
// keeps the calls indirect).
func TestIndirectCallsRun(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "indirect_calls.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestVirtualCallsRun: C++ virtual calls, whose overriders take their own
// class as `this`.
func TestVirtualCallsRun(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "virtual_calls.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
	}
}

// TestIndirectCallUnknown: a callback of a type no function of the program
// has, given memory holding derivatives, is a function from outside the
// program where it runs: the derivative stops the program there with a
// message naming the call, before any gradient.
func TestIndirectCallUnknown(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "indirect_call_unknown.c")
	for _, o := range []string{"0", "2"} {
		out, err := exec.Command(buildC(t, src, o)).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "reached an indirect call of a function from outside the program's bitcode") || strings.Contains(string(out), "gradient") {
			t.Errorf("-O%s: want the run-time stop before any gradient, got %v:\n%s", o, err, out)
		}
	}
}

// TestNullProgressCallback: such a callback that is null where the
// derivative runs (an optimizer's progress report behind a null test)
// does not stop the link, and the derivative is exact in both modes.
func TestNullProgressCallback(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "null_callback.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestAllocatorThroughPointer: memory from malloc, calloc or operator-new
// style allocators reached through function pointers (a global struct's
// field, a static pointer, a callback parameter) gets a shadow allocation
// like a direct call's; derivatives through it are checked against
// analytic values, and no shadow leaks.
func TestAllocatorThroughPointer(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "allocator_through_pointer.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestVirtualOverrideObjectsRun: a virtual call whose overrides are named
// only by vtables that code outside the derivative's call graph fills in
// (objects made in main, in a caller, by a factory): the overrides'
// bodies are parsed and kept through the roots' cut, never stand-ins.
func TestVirtualOverrideObjectsRun(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "virtual_override_objects.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXX(t, src, o)) })
	}
}

// TestExpressionTreeRun: an interpreter calling through pointers cast to
// each node's arity, where some arities have no function in the program:
// those calls never run, and the derivative is exact at every level.
func TestExpressionTreeRun(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "expression_tree.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// TestExpressionTreeOutside: where such a call runs (its target, from a
// shared library, is outside the program's bitcode), the derivative stops
// the program with a message instead of returning a gradient.
func TestExpressionTreeOutside(t *testing.T) {
	t.Parallel()
	src := "#define main tree_main\n" + testdataC(t, "expression_tree.c") + "#undef main\n" + testdataC(t, "expression_tree_outside.c")
	for _, o := range []string{"0", "2"} {
		exe := buildC(t, src, o)
		out, err := exec.Command(exe).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "reached an indirect call of a function from outside the program's bitcode") || strings.Contains(string(out), "gradient") {
			t.Errorf("-O%s: want the run-time stop before any gradient, got %v:\n%s", o, err, out)
		}
	}
}
