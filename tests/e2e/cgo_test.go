package e2e

import (
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const sqliteModule = "github.com/mattn/go-sqlite3@v1.14.22"

// TestCgoSQLite builds tests/cgo-sqlite, a Go program using SQLite through
// cgo, with CC=gozyme-cc: the SQLite amalgamation and cgo's own C go
// through gozyme's compile path and the external link through gozyme-ld.
// The program must run, and the C objects in go build's kept work
// directory must be fat objects. Skipped when the module cannot be
// downloaded, and with -short (the amalgamation's build is the longest of
// the package's C builds).
func TestCgoSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no SQLite build")
	}
	setup(t)
	mod := filepath.Join(repoRoot, "tests", "cgo-sqlite")
	env := toolEnv("CC="+tool("gozyme-cc"), "CXX="+tool("gozyme-c++"), "CGO_ENABLED=1", "GOWORK=off",
		"GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod -buildvcs=false"))
	if _, stderr, err := runErr(mod, env, "go", "mod", "download", sqliteModule); err != nil {
		t.Skipf("cannot download %s (no network or module proxy?): %v\n%s", sqliteModule, err, stderr)
	}

	exe := filepath.Join(t.TempDir(), "cgo-sqlite")
	var stdout, stderr string
	var err error
	timed(t, "CC=gozyme-cc go build (SQLite amalgamation)", func() {
		stdout, stderr, err = runErr(mod, env, "go", "build", "-work", "-x", "-o", exe, ".")
	})
	work := ""
	for _, line := range strings.Split(stderr, "\n") {
		if w, ok := strings.CutPrefix(line, "WORK="); ok && work == "" {
			work = strings.TrimSpace(w)
			t.Cleanup(func() { os.RemoveAll(work) })
		}
	}
	if err != nil {
		t.Fatalf("CC=gozyme-cc go build -work -x failed: %v\n%s...%s", err, stdout, tail(stderr, 6000))
	}
	if work == "" {
		t.Fatalf("go build -work printed no WORK= line:\n%s", tail(stderr, 6000))
	}

	out := run(t, mod, env, exe)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 || strings.Join(lines[:3], "|") != "far 25|origin 0|unit 1" ||
		!strings.HasPrefix(lines[3], "sqlite 3.") || !strings.HasSuffix(lines[3], ", 3 rows") || lines[4] != "ok" {
		t.Errorf("cgo-sqlite printed:\n%s", out)
	}
	checkNoBitcode(t, exe)
	checkCgoObjects(t, work, stderr)
}

// checkCgoObjects checks, from go build -x's log, that every C file cgo
// compiled with gozyme-cc gave a fat object in the work directory, and that
// one of them is the SQLite amalgamation. Assembly (runtime/cgo's .S files)
// gets no embedded bitcode and is left out.
func checkCgoObjects(t *testing.T, work, log string) {
	t.Helper()
	var objs []string
	asm := 0
	for _, line := range strings.Split(log, "\n") {
		f := strings.Fields(line)
		if !strings.Contains(line, tool("gozyme-cc")+" ") || !slices.Contains(f, "-c") {
			continue
		}
		var obj, src string
		for i := 0; i+1 < len(f); i++ {
			switch f[i] {
			case "-o":
				obj = f[i+1]
			case "-c":
				src = f[i+1]
			}
		}
		// Flag probes compile to /dev/null; cgo's objects are $WORK/bNNN/_xNNN.o.
		if !strings.HasPrefix(obj, "$WORK/") || !strings.HasPrefix(filepath.Base(obj), "_x") {
			continue
		}
		obj = work + strings.TrimPrefix(obj, "$WORK")
		if strings.HasSuffix(src, ".S") || strings.HasSuffix(src, ".s") {
			asm++
			continue
		}
		objs = append(objs, obj)
	}
	if len(objs) == 0 {
		t.Fatalf("go build -x shows no C compiled by gozyme-cc (cached?):\n%s", log)
	}
	sqlite := ""
	for _, obj := range objs {
		checkFatObject(t, obj)
		if definesSymbol(t, obj, "sqlite3_open_v2") {
			sqlite = obj
		}
	}
	if sqlite == "" {
		t.Errorf("none of the %d cgo objects defines sqlite3_open_v2", len(objs))
	}
	t.Logf("checked %d C objects for .llvmbc (%d from assembly skipped); SQLite's is %s", len(objs), asm, sqlite)
}

// definesSymbol reports whether the ELF object at path defines sym.
func definesSymbol(t *testing.T, path, sym string) bool {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("symbols of %s: %v", path, err)
	}
	for _, s := range syms {
		if s.Name == sym && s.Section != elf.SHN_UNDEF {
			return true
		}
	}
	return false
}

// tail is the end of a long log, at most n bytes.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
