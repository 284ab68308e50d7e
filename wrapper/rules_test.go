package wrapper

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The attribute scan follows #include "..." and <...> (and #include_next,
// #import) through the including file's directory, the -I/-iquote/-isystem
// directories and CPATH's; a computed #include counts as a mention.
func TestMentionsAttribute(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"src/a.c":         "#include \"local.h\"\n#include <api/outer.h>\nint main(void) { return 0; }\n",
		"src/local.h":     "/* nothing here */\n",
		"inc/api/outer.h": "#  include \"inner.h\"\n",
		"inc/api/inner.h": "__attribute__((enzyme(\"gradient\", g))) double f(double);\n",
		"src/plain.c":     "#include \"local.h\"\n#include <stdio.h>\nvoid __enzyme_autodiff(void *, ...);\n",
		"src/computed.c":  "#define HDR \"local.h\"\n#include HDR\n",
		"src/next.c":      "#include_next <api/outer.h>\n",
		"env/envrules.h":  "__attribute__((enzyme(\"gradient\", g))) double f(double);\n",
		"src/fromenv.c":   "# import <envrules.h>\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	cmd := Classify([]string{"-c", "-I", filepath.Join(dir, "inc"), filepath.Join(dir, "src/a.c")})
	if !mentionsAttribute(filepath.Join(dir, "src/a.c"), includeDirs(cmd), nil) {
		t.Errorf("a.c: attribute in a header two includes away not found")
	}
	if mentionsAttribute(filepath.Join(dir, "src/a.c"), nil, nil) {
		t.Errorf("a.c without -I: found an attribute it cannot reach")
	}
	if mentionsAttribute(filepath.Join(dir, "src/plain.c"), includeDirs(cmd), nil) {
		t.Errorf("plain.c: __enzyme_autodiff( taken for the attribute")
	}
	if !mentionsAttribute(filepath.Join(dir, "src/computed.c"), nil, nil) {
		t.Errorf("computed.c: #include MACRO not taken as a possible mention")
	}
	if !mentionsAttribute(filepath.Join(dir, "src/next.c"), includeDirs(cmd), nil) {
		t.Errorf("next.c: #include_next not followed")
	}
	if mentionsAttribute(filepath.Join(dir, "src/fromenv.c"), includeDirs(cmd), nil) {
		t.Errorf("fromenv.c: found envrules.h without CPATH")
	}
	t.Setenv("CPATH", filepath.Join(dir, "nowhere")+string(filepath.ListSeparator)+filepath.Join(dir, "env"))
	if !mentionsAttribute(filepath.Join(dir, "src/fromenv.c"), includeDirs(cmd), nil) {
		t.Errorf("fromenv.c: #import of a header in a CPATH directory not followed")
	}
	forced := Classify([]string{"-c", "-include", filepath.Join(dir, "inc/api/inner.h"), filepath.Join(dir, "src/plain.c")})
	if !mentionsAttribute(filepath.Join(dir, "src/plain.c"), nil, forcedIncludes(forced)) {
		t.Errorf("plain.c with -include inner.h: attribute not found")
	}
}

// A computed #include hides which headers a TU reads from the textual
// scan: the headers the compile itself lists (clang's CC_PRINT_HEADERS)
// decide whether the AST is read for the attributes of declarations, with
// no second frontend pass. A TU whose computed include reaches an
// attribute on a declaration registers its rule; one reaching none costs
// neither a preprocessor run nor an AST dump. Where the list cannot stand
// in (-H, whose output it would take; several sources in one call), the
// preprocessor decides, as it does for an attribute reached only through a
// -D macro or an annotation written out by hand.
func TestComputedIncludeAttributes(t *testing.T) {
	t.Parallel()
	dir := setup(t, map[string]string{
		"rules.h":  "double g_rule(double, double);\n__attribute__((enzyme(\"gradient\", g_rule))) double g(double);\n",
		"plain.h":  "double g(double);\n",
		"byhand.h": "double g_rule(double, double);\n__attribute__((annotate(\"enzyme:gradient\", g_rule, \"gradient\"))) double g(double);\n",
		"macro.h":  "double g_rule(double, double);\nGRAD double g(double);\n",
		"uses.c":   "#define HDR \"rules.h\"\n#include HDR\ndouble h(double x) { return g(x) * 2; }\n",
		"nouse.c":  "#define HDR \"plain.h\"\n#include HDR\ndouble h(double x) { return g(x) * 2; }\n",
		"unused.c": "#ifdef NEVER\n#include NEVER\n#endif\ndouble h(double x) { return x * 2; }\n",
		"hand.c":   "#define HDR \"byhand.h\"\n#include HDR\ndouble h(double x) { return g(x) * 2; }\n",
		"viad.c":   "#define HDR \"macro.h\"\n#include HDR\ndouble h(double x) { return g(x) * 2; }\n",
		"other.c":  "double k(double x) { return x; }\n",
		"user.c":   "#if defined(USER_H)\n#include USER_H\n#endif\ndouble h(double x) { return x * 2; }\n",
	})
	for _, c := range []struct {
		src        string
		flags      []string
		register   bool
		preprocess bool
	}{
		{"uses.c", nil, true, false},
		{"nouse.c", nil, false, false},
		{"unused.c", nil, false, false},
		{"hand.c", nil, true, false},
		{"viad.c", []string{`-DGRAD=__attribute__((enzyme("gradient", g_rule)))`}, true, false},
		{"user.c", []string{`-DUSER_H="rules.h"`}, true, false},
		{"user.c", []string{`-DUSER_H="plain.h"`}, false, false},
		{"user.c", nil, false, false},
		{"uses.c", []string{"-H"}, true, true},
		{"nouse.c", []string{"-H"}, false, true},
	} {
		obj := strings.TrimSuffix(c.src, ".c") + ".o"
		args := append(append([]string{"-O2"}, c.flags...), "-c", c.src, "-o", obj)
		r := runIn(t, dir, []string{"GOZYME_VERBOSE=1"}, "", cc(), args...)
		if r.code != 0 {
			t.Fatalf("%s %v: exit %d\n%s", c.src, c.flags, r.code, r.stderr)
		}
		registered := bytes.Contains(sectionData(t, filepath.Join(dir, obj), ".llvmbc"), []byte("__enzyme_register_gradient"))
		if registered != c.register {
			t.Errorf("%s %v: rule registered %v, want %v", c.src, c.flags, registered, c.register)
		}
		dumped := strings.Contains(r.stderr, "-ast-dump=json")
		if dumped != c.register {
			t.Errorf("%s %v: AST dumped %v, want %v\n%s", c.src, c.flags, dumped, c.register, r.stderr)
		}
		if pp := strings.Contains(r.stderr, " -E "); pp != c.preprocess {
			t.Errorf("%s %v: preprocessor run %v, want %v\n%s", c.src, c.flags, pp, c.preprocess, r.stderr)
		}
	}
	// Two sources in one call: one header list would serve both, so each
	// computed include goes to the preprocessor.
	r := runIn(t, dir, []string{"GOZYME_VERBOSE=1"}, "", cc(), "-O2", "-c", "uses.c", "other.c")
	if r.code != 0 {
		t.Fatalf("two sources: exit %d\n%s", r.code, r.stderr)
	}
	if !bytes.Contains(sectionData(t, filepath.Join(dir, "uses.o"), ".llvmbc"), []byte("__enzyme_register_gradient")) {
		t.Errorf("two sources: uses.c's rule not registered")
	}
	if !strings.Contains(r.stderr, " -E ") {
		t.Errorf("two sources: the preprocessor did not decide\n%s", r.stderr)
	}
}

// The header list of a compile is used only where it names every header
// the TU's text comes from and the user does not ask for it.
func TestHeaderListUsable(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"-c", "-O2", "a.c"}, true},
		{[]string{"-c", "-H", "a.c"}, false},
		{[]string{"-c", "-include-pch", "p.pch", "a.c"}, false},
		{[]string{"-c", "-fmodules", "a.c"}, false},
		{[]string{"-c", "-save-temps=obj", "a.c"}, false},
		{[]string{"-c", "-MD", "-MF", "a.d", "a.c"}, true},
		{[]string{"-c", "-MMD", "a.c"}, false},
		{[]string{"-c", "-Wp,-MMD,a.d", "a.c"}, false},
		{[]string{"-c", "--write-user-dependencies", "a.c"}, false},
	} {
		if got := headerListUsable(Classify(c.args)); got != c.want {
			t.Errorf("%v: usable %v, want %v", c.args, got, c.want)
		}
	}
	t.Setenv("CC_PRINT_HEADERS", "1")
	if headerListUsable(Classify([]string{"-c", "a.c"})) {
		t.Errorf("CC_PRINT_HEADERS set by the user: list taken")
	}
}

// Asking clang for the header list (CC_PRINT_HEADERS) also lists system
// headers in a dependency file, which -MMD leaves out: a compile writing
// one lists exactly what clang-14 lists, and its computed include's rule
// is still registered (decided by the preprocessor).
func TestComputedIncludeDependencyFile(t *testing.T) {
	t.Parallel()
	dir := setup(t, map[string]string{
		"rules.h": "#include <math.h>\ndouble g_rule(double, double);\n__attribute__((enzyme(\"gradient\", g_rule))) double g(double);\n",
		"uses.c":  "#include <stdio.h>\n#define HDR \"rules.h\"\n#include HDR\ndouble h(double x) { return g(x) * 2; }\n",
	})
	for _, flags := range [][]string{
		{"-MMD", "-MF", "%s.d"},
		{"-Wp,-MMD,%s.d"},
		{"--write-user-dependencies", "-MF", "%s.d"},
		{"-MD", "-MF", "%s.d"},
	} {
		depArgs := func(name string) []string {
			var out []string
			for _, f := range flags {
				if strings.Contains(f, "%s") {
					f = fmt.Sprintf(f, name)
				}
				out = append(out, f)
			}
			return append(out, "-MT", "uses.o", "-O2", "-c", "uses.c", "-o", name+".o")
		}
		if r := runIn(t, dir, nil, "", "clang-14", depArgs("want")...); r.code != 0 {
			t.Fatalf("clang-14 %v: exit %d\n%s", flags, r.code, r.stderr)
		}
		if r := runIn(t, dir, nil, "", cc(), depArgs("got")...); r.code != 0 {
			t.Fatalf("gozyme-cc %v: exit %d\n%s", flags, r.code, r.stderr)
		}
		want, err1 := os.ReadFile(filepath.Join(dir, "want.d"))
		got, err2 := os.ReadFile(filepath.Join(dir, "got.d"))
		if err1 != nil || err2 != nil {
			t.Fatalf("%v: %v %v", flags, err1, err2)
		}
		if !bytes.Equal(want, got) {
			t.Errorf("%v: dependency file\n%s\nwant (clang-14's)\n%s", flags, got, want)
		}
		if !bytes.Contains(sectionData(t, filepath.Join(dir, "got.o"), ".llvmbc"), []byte("__enzyme_register_gradient")) {
			t.Errorf("%v: the rule reached through the computed include is not registered", flags)
		}
	}
}

// A header list the user asks clang for (CC_PRINT_HEADERS_FILE) holds
// what clang-14's compile lists: gozyme's own frontend passes (the AST
// dump of attributes, the preprocessor, the bitcode beside
// -fembed-bitcode's) add nothing to it.
func TestUserHeaderListUnchanged(t *testing.T) {
	t.Parallel()
	dir := setup(t, map[string]string{
		"rules.h":    "#include <math.h>\ndouble g_rule(double, double);\n__attribute__((enzyme(\"gradient\", g_rule))) double g(double);\n",
		"direct.c":   "#include <stdio.h>\n#include \"rules.h\"\ndouble h(double x) { return g(x) * 2; }\n",
		"computed.c": "#include <stdio.h>\n#define HDR \"rules.h\"\n#include HDR\ndouble h(double x) { return g(x) * 2; }\n",
	})
	for _, c := range []struct {
		src   string
		flags []string
	}{
		{"direct.c", nil},
		{"computed.c", nil},
		{"direct.c", []string{"-fembed-bitcode"}},
	} {
		list := func(prog, name string) []byte {
			t.Helper()
			file := filepath.Join(dir, name+".txt")
			os.Remove(file)
			args := append(append([]string{"-O2"}, c.flags...), "-c", c.src, "-o", name+".o")
			r := runIn(t, dir, []string{"CC_PRINT_HEADERS=1", "CC_PRINT_HEADERS_FILE=" + file}, "", prog, args...)
			if r.code != 0 {
				t.Fatalf("%s %s %v: exit %d\n%s", prog, c.src, c.flags, r.code, r.stderr)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
		want, got := list("clang-14", "want"), list(cc(), "got")
		if !bytes.Equal(want, got) {
			t.Errorf("%s %v: the user's header list has %d lines, clang-14's %d", c.src, c.flags, bytes.Count(got, []byte("\n")), bytes.Count(want, []byte("\n")))
		}
		section := ".llvmbc"
		if len(c.flags) > 0 {
			section = ".gozyme.bc" // beside the user's own
		}
		if !bytes.Contains(sectionData(t, filepath.Join(dir, "got.o"), section), []byte("__enzyme_register_gradient")) {
			t.Errorf("%s %v: rule not registered", c.src, c.flags)
		}
	}
}
