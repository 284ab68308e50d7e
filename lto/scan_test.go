package lto

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad"
)

// notEntryPoints are the __enzyme_ names package ad reads that no call of
// makes an AD root: globals declaring functions or globals inactive,
// function-like or allocation-like, and (isRegistration) the
// __enzyme_register_* globals giving custom derivatives (pipeline.go).
var notEntryPoints = map[string]bool{
	"__enzyme_inactivefn":      true,
	"__enzyme_inactive_global": true,
	"__enzyme_function_like":   true,
	"__enzyme_allocation_like": true,
}

// TestEntryPointsScanned: every Enzyme name package ad handles (each
// __enzyme_ name in its sources' string literals, the list of entry points
// being ad.EntryPointNames) is one the link scans for, so that a module
// calling it is never linked without AD; also in suffixed and
// C++-mangled spellings, as ad matches names by substring.
func TestEntryPointsScanned(t *testing.T) {
	for _, name := range ad.EntryPointNames() {
		for _, spelling := range []string{name, name + "_f", "_Z" + strconv.Itoa(len(name)) + name + "IJdEEvPvDpT_"} {
			if !HasADRoots([]byte("call void @" + spelling + "(")) {
				t.Errorf("HasADRoots misses a call of %s", spelling)
			}
		}
	}
	if _, ok := ad.EntryPointMode("__enzyme_autodiff"); !ok {
		t.Fatal("ad.EntryPointMode does not know __enzyme_autodiff")
	}

	files, err := filepath.Glob(filepath.Join("..", "ad", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("package ad's sources: %v", err)
	}
	enzymeName := regexp.MustCompile(`__enzyme_[A-Za-z0-9_]*[A-Za-z0-9]`)
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			for _, name := range enzymeName.FindAllString(lit.Value, -1) {
				seen[name] = true
				if !notEntryPoints[name] && !isRegistration(name) && !HasADRoots([]byte(name)) {
					t.Errorf("%s: ad handles %s, which lto does not scan for (add it to ad.EntryPointNames, or to notEntryPoints here)", fset.Position(lit.Pos()), name)
				}
			}
			return true
		})
	}
	if !seen["__enzyme_autodiff"] {
		t.Error("found no __enzyme_autodiff in package ad's sources")
	}
	for name := range notEntryPoints {
		if HasADRoots([]byte(name)) {
			t.Errorf("%s, not an entry point, makes a module an AD root", name)
		}
	}
}

func isRegistration(name string) bool { return strings.HasPrefix(name, "__enzyme_register_") }
