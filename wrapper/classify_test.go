package wrapper

import (
	"github.com/gozyme/gozyme/custom"
	"reflect"
	"strings"
	"testing"
)

// classifyCase is a real command line (as build systems run it, program
// name dropped) and what the wrapper must make of it.
type classifyCase struct {
	name    string
	line    string // split at spaces
	mode    Mode
	inputs  []string // "path:lang"
	output  string   // "" when no -o
	opt     string
	devNull bool
}

var classifyCases = []classifyCase{
	// GNU make's built-in rules.
	{name: "make .c.o", line: "-O2 -c -o foo.o foo.c", mode: Compile,
		inputs: []string{"foo.c:c"}, output: "foo.o", opt: "2"},
	{name: "make link", line: "-O2 foo.o bar.o -lm -o prog", mode: Link,
		inputs: []string{"foo.o:object", "bar.o:object"}, output: "prog", opt: "2"},
	{name: "make .S.o", line: "-c -o start.o start.S", mode: Compile,
		inputs: []string{"start.S:assembler-with-cpp"}, output: "start.o", opt: "0"},
	// CMake 3.25 compiler identification: compile and link in one call,
	// then -c as a fallback; ABI detection with -v; try_compile.
	{name: "cmake id", line: "CMakeCCompilerId.c", mode: CompileAndLink,
		inputs: []string{"CMakeCCompilerId.c:c"}, opt: "0"},
	{name: "cmake id -c", line: "-c CMakeCCompilerId.c", mode: Compile,
		inputs: []string{"CMakeCCompilerId.c:c"}, opt: "0"},
	{name: "cmake abi compile", line: "-v -o CMakeFiles/cmTC_7a8b1.dir/CMakeCCompilerABI.c.o -c /usr/share/cmake-3.25/Modules/CMakeCCompilerABI.c",
		mode: Compile, inputs: []string{"/usr/share/cmake-3.25/Modules/CMakeCCompilerABI.c:c"},
		output: "CMakeFiles/cmTC_7a8b1.dir/CMakeCCompilerABI.c.o", opt: "0"},
	{name: "cmake abi link", line: "-v -Wl,-v CMakeFiles/cmTC_7a8b1.dir/CMakeCCompilerABI.c.o -o cmTC_7a8b1",
		mode: Link, inputs: []string{"CMakeFiles/cmTC_7a8b1.dir/CMakeCCompilerABI.c.o:object"},
		output: "cmTC_7a8b1", opt: "0"},
	{name: "cmake try_compile", line: "-o CMakeFiles/cmTC_1234.dir/testCCompiler.c.o -c /tmp/b/CMakeFiles/CMakeScratch/TryCompile-x/testCCompiler.c",
		mode: Compile, inputs: []string{"/tmp/b/CMakeFiles/CMakeScratch/TryCompile-x/testCCompiler.c:c"},
		output: "CMakeFiles/cmTC_1234.dir/testCCompiler.c.o", opt: "0"},
	{name: "cmake try_compile link", line: "CMakeFiles/cmTC_1234.dir/testCCompiler.c.o -o cmTC_1234",
		mode: Link, inputs: []string{"CMakeFiles/cmTC_1234.dir/testCCompiler.c.o:object"},
		output: "cmTC_1234", opt: "0"},
	{name: "cmake release c++", line: "-DNDEBUG -I/src/include -isystem /opt/x/include -O3 -std=c++17 -MD -MT CMakeFiles/t.dir/t.cpp.o -MF CMakeFiles/t.dir/t.cpp.o.d -o CMakeFiles/t.dir/t.cpp.o -c /src/t.cpp",
		mode: Compile, inputs: []string{"/src/t.cpp:c++"}, output: "CMakeFiles/t.dir/t.cpp.o", opt: "3"},
	{name: "cmake shared link", line: "-fPIC -O3 -shared -Wl,-soname,libt.so -o libt.so CMakeFiles/t.dir/t.cpp.o -Wl,-rpath,/x libdep.a",
		mode: Link, inputs: []string{"CMakeFiles/t.dir/t.cpp.o:object", "libdep.a:object"}, output: "libt.so", opt: "3"},
	// autoconf probes.
	{name: "autoconf link probe", line: "-o conftest -g -O2 conftest.c", mode: CompileAndLink,
		inputs: []string{"conftest.c:c"}, output: "conftest", opt: "2"},
	{name: "autoconf cpp probe", line: "-E conftest.c", mode: PassThrough,
		inputs: []string{"conftest.c:c"}, opt: "0"},
	{name: "autoconf compile probe", line: "-c -g -O2 conftest.c -o conftest.o", mode: Compile,
		inputs: []string{"conftest.c:c"}, output: "conftest.o", opt: "2"},
	{name: "autoconf -V probe", line: "--version", mode: PassThrough, opt: "0"},
	{name: "configure /dev/null", line: "-Werror -c conftest.c -o /dev/null", mode: Compile,
		inputs: []string{"conftest.c:c"}, output: "/dev/null", opt: "0", devNull: true},
	// cgo (go build -x).
	{name: "cgo compile", line: "-I . -fPIC -m64 -pthread -fmessage-length=0 -fdebug-prefix-map=$WORK/b001=/tmp/go-build -gno-record-gcc-switches -I $WORK/b001/ -O2 -g -o $WORK/b001/_x001.o -c x.c",
		mode: Compile, inputs: []string{"x.c:c"}, output: "$WORK/b001/_x001.o", opt: "2"},
	{name: "cgo cgo-gcc-prolog", line: "-I $WORK/b001/ -fPIC -m64 -pthread -fmessage-length=0 -O2 -g -o $WORK/b001/_x003.o -c $WORK/b001/_cgo_export.c",
		mode: Compile, inputs: []string{"$WORK/b001/_cgo_export.c:c"}, output: "$WORK/b001/_x003.o", opt: "2"},
	{name: "cgo predefined probe", line: "-E -dM -x c - -m64", mode: PassThrough,
		inputs: []string{"-:c"}, opt: "0"},
	{name: "cgo flag probe", line: "-fPIC -m64 -pthread -fmessage-length=0 -c -x c - -o /dev/null", mode: Compile,
		inputs: []string{"-:c"}, output: "/dev/null", opt: "0", devNull: true},
	{name: "cgo _cgo_.o link", line: "-I $WORK/b001/ -fPIC -m64 -pthread -fmessage-length=0 -o $WORK/b001/_cgo_.o $WORK/b001/_cgo_main.o $WORK/b001/_x001.o -O2 -g",
		mode: Link, inputs: []string{"$WORK/b001/_cgo_main.o:object", "$WORK/b001/_x001.o:object"},
		output: "$WORK/b001/_cgo_.o", opt: "2"},
	// meson.
	{name: "meson compile", line: "-Iprog.p -I. -I.. -fdiagnostics-color=always -D_FILE_OFFSET_BITS=64 -Wall -Winvalid-pch -O0 -g -MD -MQ prog.p/x.c.o -MF prog.p/x.c.o.d -o prog.p/x.c.o -c ../x.c",
		mode: Compile, inputs: []string{"../x.c:c"}, output: "prog.p/x.c.o", opt: "0"},
	{name: "meson link", line: "-o prog prog.p/x.c.o -Wl,--as-needed -Wl,--no-undefined -Wl,--start-group libfoo.a -lm -Wl,--end-group",
		mode: Link, inputs: []string{"prog.p/x.c.o:object", "libfoo.a:object"}, output: "prog", opt: "0"},
	// Bazel-style lines (after @file expansion).
	{name: "bazel compile", line: "-U_FORTIFY_SOURCE -fstack-protector -Wall -fno-omit-frame-pointer -g0 -O2 -DNDEBUG -ffunction-sections -fdata-sections -MD -MF bazel-out/k8-opt/bin/_objs/m/m.d -frandom-seed=bazel-out/k8-opt/bin/_objs/m/m.o -iquote . -iquote bazel-out/k8-opt/bin -c m.c -o bazel-out/k8-opt/bin/_objs/m/m.o",
		mode: Compile, inputs: []string{"m.c:c"}, output: "bazel-out/k8-opt/bin/_objs/m/m.o", opt: "2"},
	// Stdin, -x, -###, --version, -print-*.
	{name: "stdin c", line: "-x c - -o app", mode: CompileAndLink, inputs: []string{"-:c"}, output: "app", opt: "0"},
	{name: "stdin without -x", line: "-c -", mode: PassThrough, inputs: []string{"-:"}, opt: "0"},
	{name: "-xc joined and -x none", line: "-xc foo.txt -x none bar.o", mode: CompileAndLink,
		inputs: []string{"foo.txt:c", "bar.o:object"}, opt: "0"},
	{name: "-###", line: "-### -c foo.c", mode: PassThrough, inputs: []string{"foo.c:c"}, opt: "0"},
	{name: "-v alone", line: "-v", mode: PassThrough, opt: "0"},
	{name: "print-file-name", line: "-print-file-name=libgcc.a", mode: PassThrough, opt: "0"},
	{name: "print-prog-name", line: "-print-prog-name=ld", mode: PassThrough, opt: "0"},
	{name: "dumpmachine", line: "-dumpmachine", mode: PassThrough, opt: "0"},
	{name: "no inputs", line: "-O2 -Wall", mode: PassThrough, opt: "2"},
	// Outputs other than objects.
	{name: "-S", line: "-O2 -S foo.c -o foo.s", mode: PassThrough, inputs: []string{"foo.c:c"}, output: "foo.s", opt: "2"},
	{name: "-S beats -c", line: "-c -S foo.c", mode: PassThrough, inputs: []string{"foo.c:c"}, opt: "0"},
	{name: "-M", line: "-M foo.c", mode: PassThrough, inputs: []string{"foo.c:c"}, opt: "0"},
	{name: "-MM -MF", line: "-MM -MF foo.d foo.c", mode: PassThrough, inputs: []string{"foo.c:c"}, opt: "0"},
	{name: "-emit-llvm", line: "-c -emit-llvm foo.c -o foo.bc", mode: PassThrough, inputs: []string{"foo.c:c"}, output: "foo.bc", opt: "0"},
	{name: "-fsyntax-only", line: "-fsyntax-only foo.cc", mode: PassThrough, inputs: []string{"foo.cc:c++"}, opt: "0"},
	{name: "-flto compile", line: "-flto -O2 -c foo.c", mode: PassThrough, inputs: []string{"foo.c:c"}, opt: "2"},
	{name: "-flto -fno-lto", line: "-flto -fno-lto -c foo.c", mode: Compile, inputs: []string{"foo.c:c"}, opt: "0"},
	{name: "pch", line: "-x c++-header -c pch.hpp -o pch.hpp.pch", mode: PassThrough,
		inputs: []string{"pch.hpp:c++-header"}, output: "pch.hpp.pch", opt: "0"},
	{name: "-c without sources", line: "-c foo.o", mode: PassThrough, inputs: []string{"foo.o:object"}, opt: "0"},
	{name: "cc1", line: "-cc1 -triple x86_64-pc-linux-gnu -emit-obj -o x.o x.c", mode: PassThrough, opt: "0"},
	{name: "missing -o value", line: "foo.c -o", mode: PassThrough, inputs: []string{"foo.c:c"}, opt: "0"},
	// Arity: the values of these options are not inputs.
	{name: "separate values", line: "-Xclang -load -Xclang plugin.so -mllvm -inline-threshold=100 -target x86_64-linux-gnu -include cfg.h -MT dep -MQ $(x) -Xlinker -Map -Xlinker out.map -isysroot /sr -idirafter after -iquote q -imacros m.h -U X -D Y -L lib -l z -u sym -T script.ld -z now -e entry -Xassembler --noexecstack -Xpreprocessor -P -arch x86_64 -c x.c",
		mode: Compile, inputs: []string{"x.c:c"}, opt: "0"},
	{name: "joined values", line: "-Iinc -DX=1 -UY -Llib -lz -MFdep.d -ox.o --target=x86_64-linux-gnu --sysroot=/sr -c x.c",
		mode: Compile, inputs: []string{"x.c:c"}, output: "x.o", opt: "0"},
	{name: "-ObjC is not -O", line: "-ObjC -c x.m", mode: Compile, inputs: []string{"x.m:objective-c"}, opt: "0"},
	{name: "last -O wins", line: "-O3 -Os -c x.c", mode: Compile, inputs: []string{"x.c:c"}, opt: "s"},
	{name: "bare -O", line: "-O -c x.c", mode: Compile, inputs: []string{"x.c:c"}, opt: "1"},
	{name: "-Ofast link", line: "-Ofast x.o", mode: Link, inputs: []string{"x.o:object"}, opt: "fast"},
	{name: "link -l only", line: "-lfoo -o x", mode: Link, output: "x", opt: "0"},
	{name: "shared lib input", line: "main.o libfoo.so libbar.so.1 -o app", mode: Link,
		inputs: []string{"main.o:object", "libfoo.so:object", "libbar.so.1:object"}, output: "app", opt: "0"},
	{name: "-- ends options", line: "-c -- -weird.c", mode: Compile, inputs: []string{"-weird.c:c"}, opt: "0"},
	{name: "mixed c and asm", line: "-c a.c b.s c.cpp d.S", mode: Compile,
		inputs: []string{"a.c:c", "b.s:assembler", "c.cpp:c++", "d.S:assembler-with-cpp"}, opt: "0"},
	{name: "c++ extensions", line: "-c a.cc b.cxx c.C d.c++ e.ii f.i", mode: Compile,
		inputs: []string{"a.cc:c++", "b.cxx:c++", "c.C:c++", "d.c++:c++", "e.ii:c++-cpp-output", "f.i:cpp-output"}, opt: "0"},
	{name: "compile-and-link two", line: "a.c b.c -o app -lm", mode: CompileAndLink,
		inputs: []string{"a.c:c", "b.c:c"}, output: "app", opt: "0"},
	{name: "unknown language", line: "-x klingon -c a.c", mode: PassThrough, inputs: []string{"a.c:klingon"}, opt: "0"},
}

func TestClassify(t *testing.T) {
	for _, tc := range append(classifyCases, fortranCases...) {
		t.Run(tc.name, func(t *testing.T) {
			args := strings.Fields(tc.line)
			c := Classify(args)
			if c.Mode != tc.mode {
				t.Errorf("mode %v, want %v (reason %q)", c.Mode, tc.mode, c.Reason)
			}
			var got []string
			for _, in := range c.Inputs {
				got = append(got, in.Path+":"+in.Lang)
			}
			if !reflect.DeepEqual(got, tc.inputs) {
				t.Errorf("inputs %q, want %q", got, tc.inputs)
			}
			if c.Output != tc.output || c.HasOutput != (tc.output != "") {
				t.Errorf("output %q (given %v), want %q", c.Output, c.HasOutput, tc.output)
			}
			if c.OptLevel != tc.opt {
				t.Errorf("opt level %q, want %q", c.OptLevel, tc.opt)
			}
			if c.DevNull != tc.devNull {
				t.Errorf("devnull %v, want %v", c.DevNull, tc.devNull)
			}
			checkInvariants(t, args, c)
		})
	}
}

// checkInvariants holds for every command line: the items are the
// arguments, in order; inputs point at their items; sources are inputs.
func checkInvariants(t *testing.T, args []string, c *Command) {
	t.Helper()
	var flat []string
	for _, it := range c.Items {
		if len(it.Args) == 0 {
			t.Fatalf("empty item %+v", it)
		}
		flat = append(flat, it.Args...)
	}
	if len(flat) != len(args) || (len(args) > 0 && !reflect.DeepEqual(flat, args)) {
		t.Fatalf("items %q do not spell the arguments %q", flat, args)
	}
	for _, in := range c.Inputs {
		if in.Item < 0 || in.Item >= len(c.Items) {
			t.Fatalf("input %+v points outside the items", in)
		}
		it := c.Items[in.Item]
		if len(it.Args) != 1 || it.Args[0] != in.Path || it.Path != in.Path {
			t.Fatalf("input %q is not its item %q", in.Path, it.Args)
		}
		if (it.Kind == Source) != isSource(in.Lang) {
			t.Fatalf("input %q of language %q has kind %v", in.Path, in.Lang, it.Kind)
		}
	}
	if c.Mode == Compile || c.Mode == CompileAndLink {
		if len(c.Sources()) == 0 {
			t.Fatalf("mode %v without sources", c.Mode)
		}
	}
	if c.Mode == PassThrough && c.Reason == "" {
		t.Fatalf("pass-through without a reason")
	}
	if c.OptLevel == "" {
		t.Fatalf("empty opt level")
	}
}

func TestCompileArgs(t *testing.T) {
	c := Classify(strings.Fields("-O2 -x c a.txt -x none b.s -Wall c.cpp lib.o -MD"))
	var emb, plain []Input
	for _, in := range c.Sources() {
		if embeds(in.Lang) {
			emb = append(emb, in)
		} else {
			plain = append(plain, in)
		}
	}
	got := strings.Join(compileArgs(c, emb, true), " ")
	if want := "-O2 -Wall lib.o -MD -x c a.txt -x none c.cpp"; got != want {
		t.Errorf("embedding call %q, want %q", got, want)
	}
	got = strings.Join(compileArgs(c, plain, false), " ")
	if want := "-O2 -Wall -MD b.s"; got != want {
		t.Errorf("assembly call %q, want %q", got, want)
	}
}

func TestCompileStepArgs(t *testing.T) {
	c := Classify(strings.Fields("-O0 -MD -x c - -o out/app -lm -Wl,-z,now"))
	hdr := []string{"-idirafter", "/hdr"}
	got := strings.Join(compileStepArgs(c, c.Sources()[0], "/tmp/t/0--.o", hdr), " ")
	want := "-O0 -MD -MF out/app.d -c -o /tmp/t/0--.o -x c - -Xclang -fembed-bitcode=all " + strings.Join(custom.DefineFlags(), " ") + " -idirafter /hdr -Qunused-arguments"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	c = Classify(strings.Fields("-O2 s.S m.c"))
	got = strings.Join(compileStepArgs(c, c.Sources()[0], "t.o", hdr), " ")
	if want := "-O2 -c -o t.o s.S -Qunused-arguments"; got != want {
		t.Errorf("assembly step %q, want %q", got, want)
	}
}

func TestObjectPath(t *testing.T) {
	c := Classify(strings.Fields("-c dir/a.b.c - x"))
	var got []string
	for _, in := range c.Inputs {
		got = append(got, objectPath(c, in))
	}
	if want := []string{"a.b.o", "-.o", "x.o"}; !reflect.DeepEqual(got, want) {
		t.Errorf("objects %q, want %q", got, want)
	}
}
