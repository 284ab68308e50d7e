package lto

import (
	"strings"
	"testing"
)

func TestDropUnusedDeclarationsKeepsWhatIsNamed(t *testing.T) {
	t.Parallel()
	in := `@table = global [1 x i8*] [i8* bitcast (void ()* @inTable to i8*)]
@.str = private constant [10 x i8] c"@inString\00"

define void @root() {
  call void @called()
  ret void
}

; Function Attrs: nounwind
declare void @called() #0

; Function Attrs: nounwind
declare void @unused() #0

declare void @inTable()

declare void @"quoted unused"(i32)

declare void @inString()

declare void @selfOnly(void ()* @selfOnly)
`
	out := dropUnusedDeclarations(in)
	for _, kept := range []string{"@called()", "@inTable()", "@inString()", "define void @root()", "@table ="} {
		if !strings.Contains(out, kept) {
			t.Errorf("%s was dropped:\n%s", kept, out)
		}
	}
	for _, gone := range []string{"@unused", "@\"quoted unused\"", "@selfOnly"} {
		if strings.Contains(out, gone) {
			t.Errorf("%s was kept:\n%s", gone, out)
		}
	}
	if strings.Count(out, "; Function Attrs") != 1 {
		t.Errorf("the dropped declaration's comment stayed:\n%s", out)
	}
}
