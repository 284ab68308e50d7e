package lto

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestRegisteredRuleNames: a module without registration globals has no
// names and no error; one with a registration names its function; a file
// llvm-extract cannot read stops the link with an error naming the input.
func TestRegisteredRuleNames(t *testing.T) {
	needTool(t, "llvm-as-14")
	needTool(t, "llvm-extract-14")
	dir := t.TempDir()
	bc := func(name, text string) string {
		ll := writeFile(t, dir, name+".ll", text)
		out := filepath.Join(dir, name+".bc")
		run(t, dir, "llvm-as-14", ll, "-o", out)
		return out
	}
	ctx := context.Background()
	plain := bc("plain", "define double @f(double %x) {\n  ret double %x\n}\n")
	names, err := registeredRuleNames(ctx, plain, "plain.o")
	if err != nil || names != nil {
		t.Fatalf("module without registrations: names %v, error %v; want none", names, err)
	}
	reg := bc("reg", `define double @f(double %x) {
  ret double %x
}
define double @df(double %x, double %d) {
  ret double %d
}
@__enzyme_register_gradient_f = global [2 x i8*] [i8* bitcast (double (double)* @f to i8*), i8* bitcast (double (double, double)* @df to i8*)]
`)
	names, err = registeredRuleNames(ctx, reg, "reg.o")
	if err != nil || !reflect.DeepEqual(names, []string{"f"}) {
		t.Fatalf("registration of f: names %v, error %v; want [f]", names, err)
	}
	bad := filepath.Join(dir, "bad.bc")
	if err := os.WriteFile(bad, []byte("BC\xc0\xde truncated"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = registeredRuleNames(ctx, bad, "lib.a(bad.o)")
	if err == nil {
		t.Fatal("unreadable bitcode: no error")
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "lib.a(bad.o): ") || strings.Contains(msg, bad) {
		t.Fatalf("unreadable bitcode: error %q should name lib.a(bad.o), not the temporary file", msg)
	}
	t.Log(err)
}
