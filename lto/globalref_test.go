package lto

import (
	"math/rand"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// globalRefPattern is the regular expression globalRefScanner stands for.
var globalRefPattern = regexp.MustCompile(`@(?:"(?:[^"\\]|\\.)*"|[-a-zA-Z$._][-a-zA-Z$._0-9]*|[0-9]+)`)

// TestGlobalRefScannerMatchesPattern: the hand-written scanner finds what
// the regular expression finds, on IR lines and on random strings of the
// characters that matter (quotes, escapes, '@', name characters, digits,
// newlines, non-ASCII).
func TestGlobalRefScannerMatchesPattern(t *testing.T) {
	t.Parallel()
	lines := []string{
		`define linkonce_odr dso_local void @_ZN1AC2Ev(%struct.A* %this) #0 comdat align 2 {`,
		`  %call = call double @"na\22me"(double %x) [ "deopt"(i32 0) ], !dbg !12`,
		`@.str = private unnamed_addr constant [13 x i8] c"mail@host\00\22@x", align 1`,
		`@0 = private global i32 1`, `@ = x`, `@"unterminated`, `@"a\`, `@@a@1@-x@$y@.z@_q`,
		`store i8* bitcast (void ()* @f to i8*), i8** getelementptr (@g, i64 0), align 8`,
		"@\"\xff\\\xc3\xa9\"", "@\"a\\\n\"", "@\"a\n\"",
	}
	rng := rand.New(rand.NewSource(1))
	const alphabet = "@\"\\ab0_-$.\n\xc3\xa9\xff "
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.Intn(24); n > 0; n-- {
			b.WriteByte(alphabet[rng.Intn(len(alphabet))])
		}
		lines = append(lines, b.String())
	}
	for _, l := range lines {
		if got, want := globalRefRE.FindAllStringIndex(l, -1), globalRefPattern.FindAllStringIndex(l, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: scanner %v, pattern %v", l, got, want)
		}
		if got, want := globalRefRE.FindString(l), globalRefPattern.FindString(l); got != want {
			t.Fatalf("%q: first reference %q, pattern %q", l, got, want)
		}
		if got, want := globalRefRE.FindAllString(l, -1), globalRefPattern.FindAllString(l, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: references %q, pattern %q", l, got, want)
		}
	}
}
