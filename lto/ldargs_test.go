package lto

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/toolchains"
)

// clangLinkLine returns the linker and its arguments clang-14 would run for
// args (from `clang-14 -###`), in dir.
func clangLinkLine(t *testing.T, dir string, args ...string) (string, []string) {
	t.Helper()
	out := run(t, dir, needTool(t, "clang-14"), append([]string{"-###"}, args...)...)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	words := toolchains.SplitJob(lines[len(lines)-1])
	if len(words) < 2 {
		t.Fatalf("no link line in %s", out)
	}
	return words[0], words[1:]
}

func TestParseClangLinkLine(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "x.o", "")
	writeFile(t, dir, "lib.a", "")
	_, args := clangLinkLine(t, dir, "x.o", "-o", "app", "-lm", "-Wl,--whole-archive", "lib.a", "-Wl,--no-whole-archive", "-Wl,-soname,libx.so.1", "-Wl,-rpath,/opt/lib")
	l, err := ParseLinkArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	if l.Output != "app" {
		t.Errorf("output %q", l.Output)
	}
	var inputs, libs, flow []string
	opts := map[string]string{}
	for _, it := range l.Items {
		if got := strings.Join(args[it.Index:it.Index+it.Words], " "); it.Words == 2 && !strings.HasSuffix(got, " "+it.Value) {
			t.Errorf("item %+v spans %q", it, got)
		}
		switch it.Kind {
		case KindInput:
			inputs = append(inputs, filepath.Base(it.Value))
		case KindLibrary:
			libs = append(libs, it.Value)
		default:
			opts[it.Name] = it.Value
			switch it.Name {
			case "whole-archive", "no-whole-archive", "as-needed", "no-as-needed":
				flow = append(flow, it.Name)
			}
		}
	}
	want := []string{"Scrt1.o", "crti.o", "crtbeginS.o", "x.o", "lib.a", "crtendS.o", "crtn.o"}
	if !reflect.DeepEqual(inputs, want) {
		t.Errorf("inputs %q, want %q", inputs, want)
	}
	if !reflect.DeepEqual(libs, []string{"m", "gcc", "gcc_s", "c", "gcc", "gcc_s"}) {
		t.Errorf("libraries %q", libs)
	}
	if flow[0] != "whole-archive" || flow[1] != "no-whole-archive" || flow[2] != "as-needed" {
		t.Errorf("state flags %q", flow)
	}
	for name, v := range map[string]string{"m": "elf_x86_64", "dynamic-linker": "/lib64/ld-linux-x86-64.so.2", "hash-style": "both", "soname": "libx.so.1", "rpath": "/opt/lib", "pie": ""} {
		if got, ok := opts[name]; !ok || got != v {
			t.Errorf("option %s = %q (present %v), want %q", name, got, ok, v)
		}
	}
	if len(l.LibDirs) != 8 || l.LibDirs[2] != "/lib/x86_64-linux-gnu" {
		t.Errorf("lib dirs %q", l.LibDirs)
	}
	if got := substituteArgs(l, nil); !reflect.DeepEqual(got, args) {
		t.Errorf("rebuilt args differ:\n%q\n%q", got, args)
	}
}

func TestParseLinkArgForms(t *testing.T) {
	args := []string{"-L", "d1", "-Ld2", "--library-path=d3", "--library-path", "d4", "-L=/d5",
		"--sysroot=/sr", "-l", "m", "-lz", "-l:libfoo.a", "--library=bar", "--hash-style", "gnu",
		"-soname", "s.so", "-export-dynamic", "-(", "a.a", "-)", "-zrelro", "-z", "now", "-T", "t.ld",
		"-Ttext=0x1000", "--start-group", "--end-group", "-Bstatic", "-plugin-opt=O2", "-plugin", "p.so",
		"--build-id", "--version-script", "v.map", "-Map=out.map", "-y", "sym", "x.o", "-o", "out",
		"--push-state", "--as-needed", "--pop-state", "-mllvm", "-foo", "--defsym=a=1", "-e", "start"}
	l, err := ParseLinkArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range l.Items {
		got = append(got, it.Name+"="+it.Value)
	}
	want := []string{"L=d1", "L=d2", "library-path=d3", "library-path=d4", "L==/d5", "sysroot=/sr",
		"l=m", "l=z", "l=:libfoo.a", "l=bar", "hash-style=gnu", "soname=s.so", "export-dynamic=",
		"start-group=", "=a.a", "end-group=", "z=relro", "z=now", "T=t.ld", "Ttext=0x1000",
		"start-group=", "end-group=", "Bstatic=", "plugin-opt=O2", "plugin=p.so", "build-id=",
		"version-script=v.map", "Map=out.map", "y=sym", "=x.o", "o=out", "push-state=", "as-needed=",
		"pop-state=", "mllvm=-foo", "defsym=a=1", "e=start"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("items\n got %q\nwant %q", got, want)
	}
	if !reflect.DeepEqual(l.LibDirs, []string{"d1", "d2", "d3", "d4", "/sr/d5"}) {
		t.Errorf("lib dirs %q", l.LibDirs)
	}
	if l.Output != "out" || l.Sysroot != "/sr" {
		t.Errorf("output %q sysroot %q", l.Output, l.Sysroot)
	}
	if _, err := ParseLinkArgs([]string{"x.o", "-o"}); err == nil {
		t.Error("-o without a value accepted")
	}
}

func TestResponseFiles(t *testing.T) {
	dir := t.TempDir()
	inner := writeFile(t, dir, "inner.rsp", "-lm 'with space.o'\n")
	outer := writeFile(t, dir, "outer.rsp", `-o "my app" a\ b.o @`+inner+"\n-L/x\n")
	got, err := ExpandResponseFiles([]string{"@" + outer, "@missing.rsp", "z.o"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-o", "my app", "a b.o", "-lm", "with space.o", "-L/x", "@missing.rsp", "z.o"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("expanded %q, want %q", got, want)
	}
	// QuoteResponseArg round-trips through SplitResponseFile.
	tricky := []string{"", "a b", `q"uo'te`, `back\slash`, "tab\there"}
	var b strings.Builder
	for _, a := range tricky {
		b.WriteString(QuoteResponseArg(a) + "\n")
	}
	if back := SplitResponseFile(b.String(), RspGNU); !reflect.DeepEqual(back, tricky) {
		t.Errorf("round trip %q", back)
	}
	if err := os.WriteFile(filepath.Join(dir, "loop.rsp"), []byte("@"+filepath.Join(dir, "loop.rsp")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ExpandResponseFiles([]string{"@" + filepath.Join(dir, "loop.rsp")}); err == nil {
		t.Error("recursive response file accepted")
	}
}
