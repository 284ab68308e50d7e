package lto

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// resolveClang resolves the link clang-14 would run for args.
func resolveClang(t *testing.T, dir string, args ...string) []*Input {
	t.Helper()
	ld, ldArgs := clangLinkLine(t, dir, args...)
	line, err := ParseLinkArgs(ldArgs)
	if err != nil {
		t.Fatal(err)
	}
	withDir := make([]LinkArg, len(line.Items))
	copy(withDir, line.Items)
	for i, it := range withDir { // the test's inputs are relative to dir
		if it.Kind == KindInput && !filepath.IsAbs(it.Value) {
			line.Items[i].Value = filepath.Join(dir, it.Value)
		}
		if it.Name == "L" && !filepath.IsAbs(it.Value) {
			line.Items[i].Value = filepath.Join(dir, it.Value)
		}
	}
	for i, d := range line.LibDirs {
		if !filepath.IsAbs(d) {
			line.LibDirs[i] = filepath.Join(dir, d)
		}
	}
	ins, err := Resolve(line, ResolveOptions{RealLD: ld, LLD: IsLLD(ld)})
	if err != nil {
		t.Fatal(err)
	}
	return ins
}

// members lists the archive members among inputs as "base.a(member)", sorted.
func members(ins []*Input) []string {
	var out []string
	for _, in := range ins {
		if in.Member != nil {
			out = append(out, filepath.Base(in.Path)+"("+in.Member.Name+")")
		}
	}
	sort.Strings(out)
	return out
}

// tracedMembers links for real with the linker's trace on and returns the
// archive members it loaded, in members' format.
func tracedMembers(t *testing.T, dir string, lld bool, args ...string) []string {
	t.Helper()
	trace := "-Wl,-t,-t"
	re := regexp.MustCompile(`(?m)^\(([^)]*)\)(.*)$`)
	if lld {
		args = append([]string{"-fuse-ld=lld"}, args...)
		trace = "-Wl,--trace"
		re = regexp.MustCompile(`(?m)^(.*\.a)\((.*)\)$`)
	}
	cmd := exec.Command(needTool(t, "clang-14"), append(args, trace)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("link: %v\n%s", err, out)
	}
	var got []string
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		got = append(got, filepath.Base(m[1])+"("+m[2]+")")
	}
	sort.Strings(got)
	return got
}

func sameList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// lazyLib builds libl.a: f.o (defines f, needs g), g.o (defines g),
// dup.o (defines f_unused and a conflicting shared_name), h.o (unused).
func lazyLib(t *testing.T, dir string) {
	for name, src := range map[string]string{
		"f.o":    "int g(void); int f(void) { return g() + 1; }",
		"g.o":    "int g(void) { return 2; }",
		"dup.o":  "int shared_name = 7; int f_unused(void) { return 0; }",
		"h.o":    "int h(void) { return 4; }",
		"main.o": "int f(void); int shared_name = 1; int main(void) { return f() + shared_name; }",
	} {
		plainCompile(t, dir, name, src)
	}
	run(t, dir, needTool(t, "ar"), "rc", "libl.a", "h.o", "dup.o", "f.o", "g.o")
}

func TestResolveLazyExtraction(t *testing.T) {
	dir := t.TempDir()
	lazyLib(t, dir)
	for _, lld := range []bool{false, true} {
		args := []string{"main.o", "-L.", "-ll", "-o", "app"}
		if lld {
			args = append([]string{"-fuse-ld=lld"}, args...)
		}
		got := members(resolveClang(t, dir, args...))
		sameList(t, "members", got, []string{"libl.a(f.o)", "libl.a(g.o)"})
		sameList(t, "members vs linker trace", got, tracedMembers(t, dir, lld, "main.o", "-L.", "-ll", "-o", "app"))
	}
	// --whole-archive takes every member (and so the conflicting one).
	ins := resolveClang(t, dir, "main.o", "-Wl,--whole-archive", "libl.a", "-Wl,--no-whole-archive", "-o", "app")
	sameList(t, "whole-archive", members(ins), []string{"libl.a(dup.o)", "libl.a(f.o)", "libl.a(g.o)", "libl.a(h.o)"})
}

func TestResolveSharedVsStatic(t *testing.T) {
	dir := t.TempDir()
	lazyLib(t, dir)
	run(t, dir, needTool(t, "clang-14"), "-shared", "-o", "libl.so", "f.o", "g.o")
	ins := resolveClang(t, dir, "main.o", "-L.", "-ll", "-o", "app")
	sameList(t, "dynamic -ll", members(ins), nil)
	ins = resolveClang(t, dir, "main.o", "-L.", "-Wl,-Bstatic", "-ll", "-Wl,-Bdynamic", "-o", "app")
	sameList(t, "-Bstatic -ll", members(ins), []string{"libl.a(f.o)", "libl.a(g.o)"})
	ins = resolveClang(t, dir, "main.o", "-L.", "-l:libl.a", "-o", "app")
	sameList(t, "-l:libl.a", members(ins), []string{"libl.a(f.o)", "libl.a(g.o)"})
	// Symbols the shared library defines are not pulled from a later archive.
	ins = resolveClang(t, dir, "main.o", "./libl.so", "libl.a", "-o", "app")
	sameList(t, "shared first", members(ins), nil)
}

func TestResolveGroups(t *testing.T) {
	dir := t.TempDir()
	plainCompile(t, dir, "a1.o", "int b1(void); int a1(void) { return b1(); }")
	plainCompile(t, dir, "a2.o", "int a2(void) { return 5; }")
	plainCompile(t, dir, "b1.o", "int a2(void); int b1(void) { return a2(); }")
	plainCompile(t, dir, "main.o", "int a1(void); int main(void) { return a1(); }")
	ar := needTool(t, "ar")
	run(t, dir, ar, "rc", "liba.a", "a1.o", "a2.o")
	run(t, dir, ar, "rc", "libb.a", "b1.o")

	noGroup := members(resolveClang(t, dir, "main.o", "liba.a", "libb.a", "-o", "app"))
	sameList(t, "without a group", noGroup, []string{"liba.a(a1.o)", "libb.a(b1.o)"})
	args := []string{"main.o", "-Wl,--start-group", "liba.a", "libb.a", "-Wl,--end-group", "-o", "app"}
	grouped := members(resolveClang(t, dir, args...))
	sameList(t, "group", grouped, []string{"liba.a(a1.o)", "liba.a(a2.o)", "libb.a(b1.o)"})
	sameList(t, "group vs ld.bfd trace", grouped, tracedMembers(t, dir, false, args...))
	// lld needs no group: a later reference pulls from an earlier archive.
	lld := members(resolveClang(t, dir, "-fuse-ld=lld", "main.o", "liba.a", "libb.a", "-o", "app"))
	sameList(t, "lld without a group", lld, []string{"liba.a(a1.o)", "liba.a(a2.o)", "libb.a(b1.o)"})
}

// TestResolveStaticLibc checks the simulation against the real linkers on
// a static link: libc.a, and libm.a, an input script naming two archives.
func TestResolveStaticLibc(t *testing.T) {
	dir := t.TempDir()
	plainCompile(t, dir, "m.o", `#include <stdio.h>
#include <math.h>
int main(int c, char **v) { printf("%f\n", sin(c)); return 0; }`)
	for _, lld := range []bool{false, true} {
		args := []string{"-static", "m.o", "-o", "app", "-lm"}
		if lld {
			args = append([]string{"-fuse-ld=lld"}, args...)
		}
		got := members(resolveClang(t, dir, args...))
		if len(got) < 100 {
			t.Fatalf("only %d members resolved", len(got))
		}
		sameList(t, "static libc members vs trace", got, tracedMembers(t, dir, lld, "-static", "m.o", "-o", "app", "-lm"))
	}
}

func TestParseInputScript(t *testing.T) {
	ins, dirs, ok := parseInputScript(`/* GNU ld script */
OUTPUT_FORMAT(elf64-x86-64)
SEARCH_DIR("/extra")
GROUP ( /lib/libc.so.6 /usr/lib/libc_nonshared.a  AS_NEEDED ( /lib64/ld-linux-x86-64.so.2 ) )
INPUT(-lfoo, bar.o)`)
	if !ok {
		t.Fatal("not recognised")
	}
	var got []string
	for _, in := range ins {
		got = append(got, in.Name+map[bool]string{true: "/g", false: ""}[in.Group]+map[bool]string{true: "/n", false: ""}[in.AsNeeded])
	}
	sameList(t, "script inputs", got, []string{"/lib/libc.so.6/g", "/usr/lib/libc_nonshared.a/g", "/lib64/ld-linux-x86-64.so.2/g/n", "-lfoo", "bar.o"})
	sameList(t, "search dirs", dirs, []string{"/extra"})
	if _, _, ok := parseInputScript("SECTIONS { .text : { *(.text) } }"); ok {
		t.Error("a SECTIONS script taken for an input script")
	}
}
