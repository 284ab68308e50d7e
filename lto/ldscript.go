package lto

import (
	"regexp"
	"strings"
)

// scriptInput is one file named by a GNU ld input script.
type scriptInput struct {
	Name     string // a path, or "-lNAME"
	Group    bool   // inside GROUP(...)
	AsNeeded bool   // inside AS_NEEDED(...)
}

var scriptComment = regexp.MustCompile(`(?s)/\*.*?\*/`)

// parseInputScript reads a linker script given as an input file (such as
// glibc's libc.so: GROUP ( libc.so.6 libc_nonshared.a AS_NEEDED ( ld.so ) ))
// and returns the files its INPUT and GROUP commands name and its
// SEARCH_DIR directories. ok is false for text that is not such a script.
func parseInputScript(text string) (inputs []scriptInput, dirs []string, ok bool) {
	if strings.ContainsRune(text, 0) {
		return nil, nil, false
	}
	text = scriptComment.ReplaceAllString(text, " ")
	r := strings.NewReplacer("(", " ( ", ")", " ) ", ",", " ", ";", " ")
	toks := strings.Fields(r.Replace(text))
	var stack []string // enclosing commands
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t == "(":
			return nil, nil, false
		case t == ")":
			if len(stack) == 0 {
				return nil, nil, false
			}
			stack = stack[:len(stack)-1]
		case i+1 < len(toks) && toks[i+1] == "(":
			stack = append(stack, t)
			i++
		case strings.ContainsAny(t, "{}=") || len(stack) == 0:
			return nil, nil, false // SECTIONS, assignments: not an input script
		default:
			t = strings.Trim(t, `"`)
			in := scriptInput{Name: t}
			for _, c := range stack {
				switch c {
				case "GROUP":
					in.Group = true
				case "AS_NEEDED":
					in.AsNeeded = true
				}
			}
			switch stack[len(stack)-1] {
			case "GROUP", "INPUT", "AS_NEEDED":
				inputs = append(inputs, in)
			case "SEARCH_DIR":
				dirs = append(dirs, t)
			}
		}
	}
	return inputs, dirs, len(stack) == 0 && (len(inputs) > 0 || len(dirs) > 0)
}
