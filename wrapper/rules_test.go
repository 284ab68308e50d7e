package wrapper

import (
	"bytes"
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

// A computed #include hides which headers a TU reads: the preprocessed
// text decides whether the AST is read for the attributes of declarations.
// A TU whose computed include reaches an attribute on a declaration
// registers its rule; one reaching none costs a preprocessor run, not an
// AST dump.
func TestComputedIncludeAttributes(t *testing.T) {
	dir := setup(t, map[string]string{
		"rules.h":  "double g_rule(double, double);\n__attribute__((enzyme(\"gradient\", g_rule))) double g(double);\n",
		"plain.h":  "double g(double);\n",
		"uses.c":   "#define HDR \"rules.h\"\n#include HDR\ndouble h(double x) { return g(x) * 2; }\n",
		"nouse.c":  "#define HDR \"plain.h\"\n#include HDR\ndouble h(double x) { return g(x) * 2; }\n",
		"unused.c": "#ifdef NEVER\n#include NEVER\n#endif\ndouble h(double x) { return x * 2; }\n",
	})
	for _, c := range []struct {
		src      string
		register bool
	}{{"uses.c", true}, {"nouse.c", false}, {"unused.c", false}} {
		obj := strings.TrimSuffix(c.src, ".c") + ".o"
		r := runIn(t, dir, []string{"GOZYME_VERBOSE=1"}, "", cc(), "-O2", "-c", c.src, "-o", obj)
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", c.src, r.code, r.stderr)
		}
		registered := bytes.Contains(sectionData(t, filepath.Join(dir, obj), ".llvmbc"), []byte("__enzyme_register_gradient"))
		if registered != c.register {
			t.Errorf("%s: rule registered %v, want %v", c.src, registered, c.register)
		}
		dumped := strings.Contains(r.stderr, "-ast-dump=json")
		if dumped != c.register {
			t.Errorf("%s: AST dumped %v, want %v\n%s", c.src, dumped, c.register, r.stderr)
		}
		if !strings.Contains(r.stderr, " -E ") {
			t.Errorf("%s: the preprocessor did not decide\n%s", c.src, r.stderr)
		}
	}
}
