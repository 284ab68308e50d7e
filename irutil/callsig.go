package irutil

import "strings"

// Call signatures read from a module's text (as llvm-dis prints it): the
// function type a call through a pointer uses, and the type a definition
// has, written so that a function can be called through a pointer exactly
// when the two texts are equal: the return type and each parameter type as
// printed, but pointer parameters as "ptr" (machine code passes every
// pointer alike; a C++ override's `this` is its own class), the way
// ad/dispatch.go's callCompatible matches candidates. Where a line does not
// read as expected, the functions return ok false, and callers must assume
// any function may be called.

// IndirectCallSig is the signature of the call through a pointer on line
// (a line IndirectCall matches).
func IndirectCallSig(line string) (sig string, ok bool) {
	loc := IndirectCall.FindStringIndex(line)
	if loc == nil {
		return "", false
	}
	// The match starts at the keyword.
	kw := loc[0] + len("call")
	if strings.HasPrefix(line[loc[0]:], "invoke") {
		kw = loc[0] + len("invoke")
	}
	open := loc[1] - 1 // the callee's "("
	calleeAt := strings.LastIndexByte(line[:open], '%')
	if calleeAt < kw {
		return "", false
	}
	ret, params, hasParams, ok := readHead(line[kw:calleeAt])
	if !ok {
		return "", false
	}
	if !hasParams {
		args, ok := splitList(line[open:])
		if !ok {
			return "", false
		}
		for _, a := range args {
			t, _, ok := readType(a, 0)
			if !ok {
				return "", false
			}
			params = append(params, t)
		}
	}
	return formatSig(ret, params), true
}

// DefineSig is the signature of the function a define line defines.
func DefineSig(line string) (sig string, ok bool) {
	name := definedName(line)
	at := strings.Index(line, name+"(")
	if name == "" || at < 0 || !strings.HasPrefix(line, "define ") {
		return "", false
	}
	ret, _, hasParams, ok := readHead(line[len("define"):at])
	if !ok || hasParams {
		return "", false
	}
	ps, ok := splitList(line[at+len(name):])
	if !ok {
		return "", false
	}
	var params []string
	for _, p := range ps {
		t, _, ok := readType(p, 0)
		if !ok {
			return "", false
		}
		params = append(params, t)
	}
	return formatSig(ret, params), true
}

// formatSig writes a signature with pointer parameters as "ptr".
func formatSig(ret string, params []string) string {
	var b strings.Builder
	b.WriteString(ret)
	b.WriteByte('(')
	for i, p := range params {
		if i > 0 {
			b.WriteByte(',')
		}
		if strings.HasSuffix(p, "*") && !strings.Contains(p, "addrspace(") {
			p = "ptr"
		}
		b.WriteString(p)
	}
	b.WriteByte(')')
	return b.String()
}

// readHead reads the words before a callee or a defined name: keywords and
// attributes, then the return type, possibly followed by the parameter
// types of an explicit function type (a variadic call's).
func readHead(s string) (ret string, params []string, hasParams, ok bool) {
	i := 0
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			return "", nil, false, false
		}
		if typeStart(s[i:]) {
			break
		}
		// A keyword or an attribute, with its parenthesized argument.
		for i < len(s) && s[i] != ' ' {
			if s[i] == '(' {
				j := closing(s, i)
				if j < 0 {
					return "", nil, false, false
				}
				i = j
			}
			i++
		}
	}
	ret, i, ok = readBase(s, i)
	if !ok {
		return "", nil, false, false
	}
	ret, i = readPointers(s, ret, i)
	rest := strings.TrimSpace(s[i:])
	if rest == "" {
		return ret, nil, false, true
	}
	if rest[0] != '(' {
		return "", nil, false, false
	}
	j := closing(rest, 0)
	if j < 0 || strings.TrimSpace(rest[j+1:]) != "" {
		// A function type followed by "*" returns a function pointer.
		return "", nil, false, false
	}
	ps, ok := splitList(rest)
	if !ok {
		return "", nil, false, false
	}
	for _, p := range ps {
		t, _, ok := readType(p, 0)
		if !ok {
			return "", nil, false, false
		}
		params = append(params, t)
	}
	return ret, params, true, true
}

// typeStart reports whether s begins with a type.
func typeStart(s string) bool {
	switch s[0] {
	case '%', '{', '<', '[':
		return true
	case 'i':
		return len(s) > 1 && s[1] >= '0' && s[1] <= '9'
	}
	for _, w := range []string{"void", "half", "bfloat", "float", "double", "x86_fp80", "fp128", "ppc_fp128", "x86_mmx", "x86_amx", "ptr", "token", "metadata", "label"} {
		if strings.HasPrefix(s, w) && (len(s) == len(w) || strings.IndexByte(" *,)(", s[len(w)]) >= 0) {
			return true
		}
	}
	return false
}

// readType reads the type at s[i:] (after spaces), with its pointer and
// function-type suffixes, as printed.
func readType(s string, i int) (string, int, bool) {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i >= len(s) || !typeStart(s[i:]) {
		if strings.HasPrefix(s[i:], "...") {
			return "...", i + 3, true
		}
		return "", i, false
	}
	t, j, ok := readBase(s, i)
	if !ok {
		return "", i, false
	}
	t, j = readPointers(s, t, j)
	return t, j, true
}

// readBase reads a type without suffixes.
func readBase(s string, i int) (string, int, bool) {
	start := i
	switch s[i] {
	case '{', '<', '[':
		j := closing(s, i)
		if j < 0 {
			return "", i, false
		}
		return s[start : j+1], j + 1, true
	case '%':
		i++
		if i < len(s) && s[i] == '"' {
			if i = skipQuoted(s, i); i >= len(s) {
				return "", start, false
			}
			return s[start : i+1], i + 1, true
		}
	}
	for i < len(s) && (isIdentByte(s[i])) {
		i++
	}
	return s[start:i], i, i > start
}

// readPointers reads the suffixes of a type: "*", " addrspace(N)*", and a
// function type's parameter list when a pointer follows it.
func readPointers(s, t string, i int) (string, int) {
	for {
		switch {
		case i < len(s) && s[i] == '*':
			t += "*"
			i++
		case strings.HasPrefix(s[i:], " addrspace("):
			j := closing(s, i+len(" addrspace"))
			if j < 0 {
				return t, i
			}
			t += s[i : j+1]
			i = j + 1
		case strings.HasPrefix(s[i:], " ("):
			j := closing(s, i+1)
			if j < 0 || j+1 >= len(s) || (s[j+1] != '*' && !strings.HasPrefix(s[j+1:], " addrspace(")) {
				return t, i
			}
			t += s[i : j+1]
			i = j + 1
		default:
			return t, i
		}
	}
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '$' || c == '-'
}

// closing is the index of the bracket closing the one at s[i], or -1;
// quoted names are skipped.
func closing(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '"':
			j = skipQuoted(s, j)
		case '(', '{', '[', '<':
			depth++
		case ')', '}', ']', '>':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// splitList splits the parenthesized list s starts with at its top-level
// commas; an empty list has no elements.
func splitList(s string) ([]string, bool) {
	end := closing(s, 0)
	if end < 0 || s[0] != '(' {
		return nil, false
	}
	inner := s[1:end]
	if strings.TrimSpace(inner) == "" {
		return nil, true
	}
	return splitTopLevel(inner)
}
