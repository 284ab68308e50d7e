package irutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const partialIR = `@table = internal global [1 x double (double)*] [double (double)* @unused_static]
@enzyme_dup = external global i32
@ba = global i8* blockaddress(@jumpy, %target)
@"quoted name" = global i32 0

declare double @__enzyme_autodiff(i8*, ...)

define internal double @unused_static(double %x) {
  %y = fmul double %x, 3.0
  ret double %y
}

define double @helper(double %x) {
  %y = fmul double %x, %x
  ret double %y
}

define internal double @f(double %x) {
  %y = call double @helper(double %x)
  ret double %y
}

define double @root(double %x) {
  %d = call double (i8*, ...) @__enzyme_autodiff(i8* bitcast (double (double)* @f to i8*), double %x)
  ret double %d
}

define double @unrelated(double %x) {
  %t = load double (double)*, double (double)** getelementptr ([1 x double (double)*], [1 x double (double)*]* @table, i32 0, i32 0)
  %y = call double %t(double %x)
  ret double %y
}

define i32 @jumpy(i32 %x) {
  br label %target
target:
  ret i32 %x
}
`

// Only the roots and what they refer to are parsed; the other bodies come
// back unchanged, and the module written is valid.
func TestParsePartial(t *testing.T) {
	seeds := Seeds{
		Func:   func(body string) bool { return strings.Contains(body, "__enzyme_") },
		Global: func(name string) bool { return strings.Contains(name, "__enzyme_") },
	}
	p, err := ParsePartial("partial.ll", partialIR, seeds)
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string]int{}
	for _, f := range p.Module.Funcs {
		n := 0
		for _, b := range f.Blocks {
			n += len(b.Insts)
		}
		bodies[f.Name()] = n
	}
	// Parsed: root, f, helper (calls), jumpy (blockaddress). Left out:
	// unrelated and unused_static (only a global nothing needed uses).
	for name, full := range map[string]bool{"root": true, "f": true, "helper": true, "jumpy": false, "unrelated": false, "unused_static": false} {
		if got := bodies[name] > 0; got != full {
			t.Errorf("%s parsed with %d instructions", name, bodies[name])
		}
	}
	if parsed, elided := p.Parsed(); parsed != 4 || elided != 2 {
		t.Errorf("Parsed() = %d, %d; want 4, 2", parsed, elided)
	}
	out := filepath.Join(t.TempDir(), "out.ll")
	if err := p.WriteText(out); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(out)
	for _, want := range []string{"%y = fmul double %x, 3.0", "%t = load double (double)*"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if opt, err := exec.LookPath("opt-14"); err == nil {
		if msg, err := exec.Command(opt, "-verify", "-disable-output", out).CombinedOutput(); err != nil {
			t.Errorf("opt -verify: %v\n%s\n%s", err, msg, text)
		}
	}
}

// Text not shaped like llvm-dis output (a body not closed by a lone "}")
// is parsed whole.
func TestParsePartialOtherText(t *testing.T) {
	seeds := Seeds{Func: func(string) bool { return false }, Global: func(string) bool { return false }}
	p, err := ParsePartial("oneline.ll", "define double @g(double %x) {\n  ret double %x }\n", seeds)
	if err != nil {
		t.Fatal(err)
	}
	if p.Module == nil || len(p.Module.Funcs) != 1 || len(p.Module.Funcs[0].Blocks) != 1 {
		t.Fatalf("module not parsed whole: %+v", p.Module)
	}
	if parsed, elided := p.Parsed(); parsed != 1 || elided != 0 {
		t.Errorf("Parsed() = %d, %d; want 1, 0", parsed, elided)
	}
	out := filepath.Join(t.TempDir(), "out.ll")
	if err := p.WriteText(out); err != nil {
		t.Fatal(err)
	}
	if text, _ := os.ReadFile(out); !strings.Contains(string(text), "ret double %x") {
		t.Errorf("output lacks the body:\n%s", text)
	}
}

// A needed function that calls through a pointer may reach any function
// whose address the program takes: a vtable only unneeded code stores
// (an object made in main) still names its override, whose body must be
// parsed rather than left as a stand-in.
func TestParsePartialIndirectCallee(t *testing.T) {
	t.Parallel()
	p := parseWithIndirectCall(t, "double (double)", "double %y")
	for _, f := range p.Module.Funcs {
		if f.Name() == "unused_static" && (p.Elided(f) || len(f.Blocks[0].Insts) == 0) {
			t.Errorf("unused_static, named by @table, left out of the parse")
		}
	}
}

// A call through a pointer needs only the address-taken functions its type
// can call: @table's double (double) function stays out of the parse when
// the only indirect call takes two doubles.
func TestParsePartialIndirectCalleeOtherType(t *testing.T) {
	t.Parallel()
	p := parseWithIndirectCall(t, "double (double, double)", "double %y, double %x")
	for _, f := range p.Module.Funcs {
		if f.Name() == "unused_static" && !p.Elided(f) {
			t.Errorf("unused_static, of another type than the indirect call, parsed")
		}
	}
}

// parseWithIndirectCall parses partialIR for its roots with a call through
// a pointer of type fn, given args, added to @f.
func parseWithIndirectCall(t *testing.T, fn, args string) *Partial {
	t.Helper()
	call := "  %y = call double @helper(double %x)\n"
	text := strings.Replace(partialIR, call, call+"  %p = load "+fn+"*, "+fn+"** undef\n  %z = call double %p("+args+")\n", 1)
	p, err := ParsePartial("partial.ll", text, Seeds{
		Func:   func(body string) bool { return strings.Contains(body, "__enzyme_") },
		Global: func(string) bool { return false },
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
