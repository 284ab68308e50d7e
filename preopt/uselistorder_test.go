package preopt

import "testing"

// The light module's text keeps its use-list order for the second opt;
// what llir parses has none of the directives, in functions or at the
// module's end, and nothing else is dropped.
func TestDropUseListOrder(t *testing.T) {
	t.Parallel()
	in := "define i32 @f(i32 %x) {\n  %a = add i32 %x, 1\n  %b = mul i32 %x, %a\n  ret i32 %b\n  uselistorder i32 %x, { 1, 0 }\n}\n" +
		"@.str = constant [13 x i8] c\"uselistorder\\00\"\nuselistorder i32 (i32)* @f, { 1, 0 }\nuselistorder_bb @f, %bb, { 1, 0 }"
	want := "define i32 @f(i32 %x) {\n  %a = add i32 %x, 1\n  %b = mul i32 %x, %a\n  ret i32 %b\n}\n" +
		"@.str = constant [13 x i8] c\"uselistorder\\00\"\n"
	if got := string(dropUseListOrder([]byte(in))); got != want {
		t.Errorf("dropUseListOrder:\n%s\nwant\n%s", got, want)
	}
	if same := "define void @g() {\n  ret void\n}\n"; string(dropUseListOrder([]byte(same))) != same {
		t.Errorf("text without directives changed")
	}
}
