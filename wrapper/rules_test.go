package wrapper

import (
	"os"
	"path/filepath"
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
