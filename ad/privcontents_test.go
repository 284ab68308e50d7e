package ad

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/activity"
	"github.com/llir/llvm/ir"
)

// TestPrivateContents runs the callees of testdata/private_contents.cc at
// every level against central differences: one whose call site proves the
// vector it writes private, and four where it is not (the same vector
// twice, a second pointer to its buffer in memory or as an argument, a
// callee keeping the buffer's address) whose reads through the other
// pointer must see the writes.
func TestPrivateContents(t *testing.T) {
	t.Parallel()
	src := cxxPrelude + testdataC(t, "private_contents.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildCXXLinked(t, src, o)) })
	}
}

// TestPrivateContentsFact checks who gets the fact in the same program at
// -O2: the caller's half (privateArgs: a split pair named _pc1 for y) only
// where y's buffer is held by y alone, the callee's half (calleeContents)
// only where the callee lets the loaded buffer address go nowhere.
func TestPrivateContentsFact(t *testing.T) {
	t.Parallel()
	src := cxxPrelude + testdataC(t, "private_contents.cc")
	dir := t.TempDir()
	m := preAD(t, dir, compileBitcode(t, dir, "clang++", "prog.cc", src, "2"), "2", linkedLoops...)
	fn := func(part string) *ir.Func {
		for _, f := range m.Funcs {
			if len(f.Blocks) > 0 && strings.Contains(f.Name(), part) {
				return f
			}
		}
		t.Fatalf("no function named like %s in %s", part, filepath.Base(dir))
		return nil
	}
	for _, c := range []struct {
		root, callee string
		private      bool
	}{
		{"4last", "6evolve", true},
		{"4self", "6evolve", false},
		{"6viewed", "11evolve_view", false},
		{"4kept", "11evolve_keep", true}, // the caller's half holds
		{"6passed", "10evolve_raw", false},
	} {
		d := newDiffer(m, Options{})
		pf, err := d.prepared(fn(c.root))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.generateReverse(func() (*reverseGen, error) {
			return newReverseGen(d, pf, []activity.Activity{activity.Dup, activity.Const}, true, false, false, "grad_"+c.root)
		}); err != nil {
			t.Fatalf("%s: %v", c.root, err)
		}
		found, private := false, false
		for name := range d.splits {
			if strings.Contains(name, c.callee) {
				found = true
				private = private || strings.HasSuffix(strings.TrimSuffix(name, "_f"), "_pc1") // a framed pair's _f last
			}
		}
		if !found || private != c.private {
			t.Errorf("%s: split pair of %s found %v, private contents %v; want %v", c.root, c.callee, found, private, c.private)
		}
	}
	d := newDiffer(m, Options{})
	for _, c := range []struct {
		callee string
		kept   bool
	}{{"6evolve", true}, {"11evolve_keep", false}} {
		pf, err := d.prepared(fn(c.callee))
		if err != nil {
			t.Fatal(err)
		}
		if got := d.calleeContents(pf, []bool{false, true, false}) != nil; got != c.kept {
			t.Errorf("%s keeps the fact: %v, want %v", c.callee, got, c.kept)
		}
	}
}

// TestIntegerAddresses runs testdata/integer_addresses.c at every level
// against central differences: a buffer whose address becomes an integer
// for its size only stays uncaptured (its reads are reloaded); one whose
// address is stored as an integer and read back as a pointer is captured.
func TestIntegerAddresses(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "integer_addresses.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
}

// integerAddressIR turns fresh buffers' addresses into integers: %a for its
// size only, %b stored as an integer, %c turned back into a pointer, %d
// used as an index into another object.
const integerAddressIR = `
declare i8* @malloc(i64)
define i64 @f(i64* %slot, i8* %other) {
  %a = call i8* @malloc(i64 64)
  %b = call i8* @malloc(i64 64)
  %c = call i8* @malloc(i64 64)
  %d = call i8* @malloc(i64 64)
  %a.end = getelementptr i8, i8* %a, i64 64
  %ai = ptrtoint i8* %a to i64
  %aei = ptrtoint i8* %a.end to i64
  %size = sub i64 %aei, %ai
  %n = ashr i64 %size, 3
  %big = icmp ugt i64 %n, 4
  %m = select i1 %big, i64 %n, i64 4
  %bi = ptrtoint i8* %b to i64
  store i64 %bi, i64* %slot
  %ci = ptrtoint i8* %c to i64
  %cp = inttoptr i64 %ci to i8*
  %di = ptrtoint i8* %d to i64
  %oi = ptrtoint i8* %other to i64
  %off = sub i64 %di, %oi
  %dp = getelementptr i8, i8* %other, i64 %off
  store i8 0, i8* %dp
  store i8 0, i8* %cp
  %ok = icmp eq i64 %m, 8
  %r = zext i1 %ok to i64
  ret i64 %r
}
`

// TestIntegerAddressCaptures: an address used as an integer for arithmetic
// and comparisons only is not captured; stored, turned back into a pointer
// or used as an offset from another object, it is.
func TestIntegerAddressCaptures(t *testing.T) {
	t.Parallel()
	m := parseIR(t, integerAddressIR)
	f := m.Funcs[1]
	d := newDiffer(m, Options{})
	users := usersOf(f)
	want := map[string]bool{"a": false, "b": true, "c": true, "d": true}
	for _, inst := range f.Blocks[0].Insts {
		c, ok := inst.(*ir.InstCall)
		if !ok {
			continue
		}
		name := strings.TrimPrefix(c.Ident(), "%")
		if got := d.capturesIn(users, c); got != want[name] {
			t.Errorf("%%%s captured: %v, want %v", name, got, want[name])
		}
	}
}
