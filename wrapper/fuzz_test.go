package wrapper

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzClassify checks that Classify never panics and that its result
// always describes the command line it was given. Arguments are separated
// by NUL bytes in the fuzzed string.
func FuzzClassify(f *testing.F) {
	for _, tc := range classifyCases {
		f.Add(strings.Join(strings.Fields(tc.line), "\x00"))
	}
	f.Add("-o")
	f.Add("-x\x00")
	f.Add("-Xarch_x86_64")
	f.Add("--\x00-c\x00-")
	f.Add("\x00")
	f.Fuzz(func(t *testing.T, s string) {
		var args []string
		if s != "" {
			args = strings.Split(s, "\x00")
		}
		c := Classify(args)
		checkInvariants(t, args, c)
		for _, in := range c.Inputs {
			found := false
			for _, a := range args {
				if a == in.Path {
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("input %q is not among the arguments", in.Path)
			}
		}
		if c.HasOutput {
			found := false
			for _, a := range args {
				if a == c.Output || a == "-o"+c.Output || a == "--output="+c.Output {
					found = true
				}
			}
			if !found {
				t.Fatalf("output %q is not among the arguments", c.Output)
			}
		}
		// Rebuilding a compile line keeps every option but -x in place and
		// appends the sources in order.
		if c.Mode == Compile {
			var kept []string
			for _, it := range c.Items {
				if it.Kind != Language && it.Kind != Source {
					kept = append(kept, it.Args...)
				}
			}
			rebuilt := compileArgs(c, c.Sources(), true)
			if len(rebuilt) < len(kept) || !reflect.DeepEqual(rebuilt[:len(kept)], kept) && len(kept) > 0 {
				t.Fatalf("compileArgs %q does not start with the options %q", rebuilt, kept)
			}
			rest := rebuilt[len(kept):]
			for _, src := range c.Sources() {
				k := 0
				for k < len(rest) && rest[k] != src.Path {
					k += 2 // -x LANG
				}
				if k >= len(rest) {
					t.Fatalf("compileArgs %q lost source %q", rebuilt, src.Path)
				}
				rest = rest[k+1:]
			}
		}
	})
}
