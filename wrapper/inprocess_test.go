package wrapper

import (
	"reflect"
	"testing"
)

// TestSoleCommand reads clang -###'s printing of a link: the one command,
// its words unquoted; anything else printed (a diagnostic, a second
// command, another program) is no such line.
func TestSoleCommand(t *testing.T) {
	t.Parallel()
	head := "Debian clang version 14.0.6\nTarget: x86_64-pc-linux-gnu\nThread model: posix\nInstalledDir: /usr/bin\n"
	args, ok := soleCommand(head+` "/bin/gozyme-ld" "-o" "a b" "x\"y" "c\\d" "\$HOME" ""`+"\n", "/bin/gozyme-ld")
	if want := []string{"-o", "a b", `x"y`, `c\d`, "$HOME", ""}; !ok || !reflect.DeepEqual(args, want) {
		t.Errorf("got %q, %v; want %q", args, ok, want)
	}
	for _, out := range []string{
		head + "clang: warning: argument unused during compilation: '-c'\n" + ` "/bin/gozyme-ld" "-o" "a"` + "\n",
		head + ` "/bin/gozyme-ld" "-o" "a"` + "\n" + ` "/usr/bin/objcopy" "a"` + "\n",
		head + ` "/usr/bin/ld" "-o" "a"` + "\n",
		head + "clang: error: no such file or directory: 'x.o'\n",
	} {
		if args, ok := soleCommand(out, "/bin/gozyme-ld"); ok {
			t.Errorf("%q: got %q", out, args)
		}
	}
}
