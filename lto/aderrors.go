package lto

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/gozyme/gozyme/ad"
	"github.com/gozyme/gozyme/toolchains"
)

// mangled matches quoted C++ symbol names in a message.
var mangled = regexp.MustCompile(`'(_Z[\w.$]+)'`)

// presentADError prepares an error of package ad for the user: the LLVM IR
// of the construct only under GOZYME_VERBOSE=1, and C++ names demangled
// (llvm-cxxfilt; left as they are when it cannot run).
func presentADError(ctx context.Context, err error) error {
	var e *ad.Error
	if !errors.As(err, &e) {
		return err
	}
	e.ShowIR = toolchains.ConfigOf(ctx).Verbose
	demangle := func(s string) string {
		names := mangled.FindAllStringSubmatch(s, -1)
		if len(names) == 0 {
			return s
		}
		var args []string
		for _, n := range names {
			args = append(args, n[1])
		}
		out, err := toolchains.Run(ctx, "llvm-cxxfilt", args...)
		if err != nil {
			return s
		}
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		if len(lines) != len(args) {
			return s
		}
		for i, n := range names {
			s = strings.Replace(s, n[0], "'"+lines[i]+"'", 1)
		}
		return s
	}
	e.Func = strings.Trim(demangle("'"+e.Func+"'"), "'")
	e.Msg = demangle(e.Msg)
	e.Call = demangle(e.Call)
	e.Root = demangle(e.Root)
	return err
}
