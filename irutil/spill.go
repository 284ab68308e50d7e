package irutil

import (
	"fmt"
	"strings"
)

// A value of a long straight-line function that is used far from where it
// is defined (the reverse sweep of a derivative reads what the forward
// sweep computed) lives across most of the function, and LLVM 14's
// register allocator pays for every call such a live range crosses (the
// clobber masks are checked per live range and call): quadratic in the
// function's size. SpillLongLiveValues stores such values to stack slots
// where they are defined and loads them again near their uses, which is
// what the allocator would do with a value live across calls that clobber
// every floating-point register, and keeps every live range short.

// spillPrefix starts the names of the slots and reloads it adds.
const spillPrefix = "gozyme.spill."

// SpillLongLiveValues rewrites, in every function of text (a module as
// LLVM prints it), the values used more than distance instructions after
// their definition (or after their last reload) to go through a stack
// slot: a store after the definition, a load before such a use, reused by
// the uses that follow it closely in the same block. Only values of
// known, storable types defined by ordinary instructions are rewritten,
// never one a phi uses. It returns the text and the number of values
// rewritten. Where only is not nil, only the functions whose header
// line it accepts are rewritten.
func SpillLongLiveValues(text string, distance int, only func(header string) bool) (string, int, error) {
	if distance <= 0 {
		return text, 0, fmt.Errorf("SpillLongLiveValues: distance %d", distance)
	}
	typeNames := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "%") && strings.Contains(l, " = type ") {
			typeNames[l[:strings.Index(l, " = type ")]] = true
		}
	}
	return mapFunctions(text, func(header string, body []string) ([]string, int, error) {
		if only != nil && !only(header) {
			return body, 0, nil
		}
		out, n := spillFunction(body, distance, typeNames)
		return out, n, nil
	})
}

// spillFunction is SpillLongLiveValues on one function body; it returns
// the body and the number of values rewritten.
func spillFunction(body []string, distance int, typeNames map[string]bool) ([]string, int) {
	n := len(body)
	pos := make([]int, n)   // instructions before each line
	block := make([]int, n) // block index of each line
	phi := make([]bool, n)
	type def struct {
		line int
		typ  string
		uses []int
	}
	defs := map[string]*def{}
	var order []string
	p, b := 0, 0
	for k, l := range body {
		pos[k], block[k] = p, b
		if _, ok := blockLabel(l); ok {
			b++
			block[k] = b
			continue
		}
		if !isInstruction(l) {
			continue
		}
		p++
		t := strings.TrimSpace(l)
		phi[k] = opcode(t) == "phi"
		if name, rhs, ok := strings.Cut(t, " = "); ok && strings.HasPrefix(name, "%") && !typeNames[name] && !strings.Contains(name, `"`) {
			if typ := storableResult(rhs); typ != "" {
				defs[name] = &def{line: k, typ: typ}
				order = append(order, name)
			}
		}
		if strings.Contains(t, "@llvm.dbg.") {
			continue // metadata uses keep nothing alive
		}
		for _, tok := range localNames(t) {
			if d := defs[tok]; d != nil && d.line != k {
				d.uses = append(d.uses, k)
			}
		}
	}
	stores := map[int][]string{} // line -> lines to add after it
	loads := map[int][]string{}  // line -> lines to add before it
	rename := map[int]map[string]string{}
	var slots []string
	spilled := 0
	for _, name := range order {
		d := defs[name]
		defPos, defBlock := pos[d.line], block[d.line]
		if len(d.uses) == 0 || pos[d.uses[len(d.uses)-1]]-defPos <= distance {
			continue
		}
		usedByPhi := false
		for _, u := range d.uses {
			usedByPhi = usedByPhi || phi[u]
		}
		if usedByPhi {
			continue
		}
		spilled++
		slot := fmt.Sprintf("%%%s%d", spillPrefix, spilled)
		slots = append(slots, fmt.Sprintf("  %s = alloca %s", slot, d.typ))
		stores[d.line] = append(stores[d.line], fmt.Sprintf("  store %s %s, %s* %s", d.typ, name, d.typ, slot))
		cur, curBlock, curPos, reloads := name, defBlock, defPos, 0
		for _, u := range d.uses {
			if block[u] != curBlock || pos[u]-curPos > distance {
				reloads++
				cur = fmt.Sprintf("%s.r%d", slot, reloads)
				loads[u] = append(loads[u], fmt.Sprintf("  %s = load %s, %s* %s", cur, d.typ, d.typ, slot))
				curBlock, curPos = block[u], pos[u]
			}
			if cur != name {
				if rename[u] == nil {
					rename[u] = map[string]string{}
				}
				rename[u][name] = cur
			}
		}
	}
	if spilled == 0 {
		return body, 0
	}
	out := make([]string, 0, n+len(slots)+2*spilled)
	placed := false
	for k, l := range body {
		if !placed && isInstruction(l) {
			out = append(out, slots...) // the entry block's first instruction
			placed = true
		}
		out = append(out, loads[k]...)
		if r := rename[k]; r != nil {
			l = renameLocals(l, r)
		}
		out = append(out, l)
		out = append(out, stores[k]...)
	}
	return out, spilled
}

// storableResult returns the type of the value an instruction (the text
// after "%x = ") defines, where it is a scalar, pointer or vector read off
// the instruction and the instruction may be followed by a store; else "".
func storableResult(rhs string) string {
	w := strings.Fields(rhs)
	if len(w) < 2 {
		return ""
	}
	var typ string
	switch op := w[0]; op {
	case "add", "fadd", "sub", "fsub", "mul", "fmul", "udiv", "sdiv", "fdiv", "urem", "srem", "frem",
		"shl", "lshr", "ashr", "and", "or", "xor", "fneg":
		typ = typeAt(skipWords(rhs[len(op)+1:], fpFlags))
	case "load":
		rest := rhs[len("load "):]
		if strings.HasPrefix(rest, "atomic ") || strings.HasPrefix(rest, "volatile ") {
			return ""
		}
		typ = typeAt(rest)
	case "trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
		"ptrtoint", "inttoptr", "bitcast", "addrspacecast":
		i := strings.LastIndex(rhs, " to ")
		if i < 0 {
			return ""
		}
		typ = typeAt(rhs[i+4:])
	case "fcmp", "icmp":
		_, rest, _ := strings.Cut(skipWords(rhs[len(op)+1:], fpFlags), " ") // the predicate
		if t := typeAt(rest); t != "" && t[0] != '<' {
			typ = "i1"
		}
	case "call", "tail":
		rest := rhs
		if op == "tail" {
			rest = strings.TrimPrefix(rest, "tail ")
		}
		if !strings.HasPrefix(rest, "call ") {
			return ""
		}
		rest = skipWords(rest[len("call "):], callWords)
		typ = typeAt(rest)
		if typ == "" || strings.HasSuffix(typ, ")") || !strings.HasPrefix(rest[len(typ):], " @") {
			return "" // an indirect call or one with an explicit function type
		}
	default:
		return ""
	}
	if !storableType(typ) {
		return ""
	}
	return typ
}

// storableType reports whether a value of type typ may go through a slot
// here: a scalar, pointer or vector.
func storableType(typ string) bool {
	switch {
	case typ == "", typ == "void", typ == "token", typ == "metadata", typ == "label", typ[0] == '{', typ[0] == '[':
		return false
	}
	return true
}

// fpFlags are the words between an arithmetic opcode and its type.
var fpFlags = map[string]bool{"nuw": true, "nsw": true, "exact": true, "fast": true, "nnan": true, "ninf": true,
	"nsz": true, "arcp": true, "contract": true, "afn": true, "reassoc": true}

// callWords are the words between "call" and the return type: flags,
// calling conventions and return attributes without arguments.
var callWords = map[string]bool{"fast": true, "nnan": true, "ninf": true, "nsz": true, "arcp": true, "contract": true,
	"afn": true, "reassoc": true, "ccc": true, "fastcc": true, "coldcc": true, "noalias": true, "nonnull": true,
	"zeroext": true, "signext": true, "inreg": true, "noundef": true}

// skipWords drops the leading words of s that are in words.
func skipWords(s string, words map[string]bool) string {
	for {
		i := strings.IndexByte(s, ' ')
		if i < 0 || !words[s[:i]] {
			return s
		}
		s = s[i+1:]
	}
}

// typeAt returns the type at the start of s, "" where there is none.
func typeAt(s string) string {
	n := TypeLen(s)
	if n <= 0 || n > len(s) {
		return ""
	}
	return s[:n]
}

// localNames returns the unquoted %-names an instruction line mentions
// (local values, and type names, which callers tell apart).
func localNames(l string) []string {
	var out []string
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '"':
			k := skipString(l, i)
			if k < 0 {
				return out
			}
			i = k - 1
		case '%':
			j := i + 1
			for j < len(l) && isNameChar(l[j]) {
				j++
			}
			if j > i+1 {
				out = append(out, l[i:j])
			}
			i = j - 1
		}
	}
	return out
}

// renameLocals replaces the %-names of l that rename maps.
func renameLocals(l string, rename map[string]string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '"':
			k := skipString(l, i)
			if k < 0 {
				k = len(l)
			}
			i = k - 1
		case '%':
			j := i + 1
			for j < len(l) && isNameChar(l[j]) {
				j++
			}
			if to, ok := rename[l[i:j]]; ok {
				b.WriteString(l[last:i])
				b.WriteString(to)
				last = j
			}
			i = j - 1
		}
	}
	b.WriteString(l[last:])
	return b.String()
}

// HasMarkedAttributes returns a test of function headers: whether the
// function refers to an attribute group (`attributes #N = { ... }`) of
// text that holds marker.
func HasMarkedAttributes(text, marker string) func(header string) bool {
	groups := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "attributes #") && strings.Contains(l, marker) {
			groups[strings.Fields(l)[1]] = true
		}
	}
	return func(header string) bool {
		for _, w := range strings.Fields(header) {
			if groups[w] {
				return true
			}
		}
		return false
	}
}
