package lto

import (
	"regexp"
	"strings"
)

// symbolView is the linker's resolution of a link's global symbols, as
// ld.bfd and lld make it: of the definitions in the objects and archive
// members the link loads (Resolve), the first strong one in load order
// wins; without a strong one, the first weak or common one. Shared
// libraries never win over an object's definition and are left out. A
// second strong definition is a "multiple definition" error, unless both
// sit in COMDAT groups (the linker keeps the first group) or the link
// allows it (--allow-multiple-definition, -z muldefs: the first wins).
type symbolView struct {
	winner map[string]*Input   // the input whose definition the program uses
	sym    map[string]objSym   // the winning definition
	later  map[string][]*Input // further strong definitions, in load order
	rules  symbolRules
	// entryUsers are the inputs whose native code refers to each
	// undefined name mentioning __enzyme_; entryUnknown says some input's
	// native symbols could not be read.
	entryUsers   map[string][]*Input
	entryUnknown bool
}

// symbolRules are the linker options that change what a symbol resolves to.
type symbolRules struct {
	allowMultiple bool              // --allow-multiple-definition, -z muldefs
	wrap          map[string]bool   // --wrap=NAME
	defsym        map[string]string // --defsym=NAME=EXPR: the symbol EXPR names, "" for an address or expression
	icf           bool              // --icf=all or safe: functions of identical code may share an address
}

// linkRules reads the symbol rules of a link line.
func linkRules(line *LinkLine) symbolRules {
	r := symbolRules{wrap: map[string]bool{}, defsym: map[string]string{}}
	for _, it := range line.Items {
		if it.Kind != KindOption {
			continue
		}
		switch it.Name {
		case "allow-multiple-definition":
			r.allowMultiple = true
		case "z":
			if it.Value == "muldefs" {
				r.allowMultiple = true
			}
		case "wrap":
			r.wrap[it.Value] = true
		case "icf":
			r.icf = it.Value != "none"
		case "defsym":
			lhs, rhs, _ := strings.Cut(it.Value, "=")
			lhs, rhs = strings.TrimSpace(lhs), strings.TrimSpace(rhs)
			if !symbolName.MatchString(rhs) {
				rhs = ""
			}
			r.defsym[lhs] = rhs
		}
	}
	return r
}

// symbolName matches an expression that is just a symbol.
var symbolName = regexp.MustCompile(`^[A-Za-z_.$][A-Za-z0-9_.$@]*$`)

// target returns the symbol a reference to name resolves to: --defsym's
// symbol; under --wrap=NAME, __wrap_NAME for a reference to NAME and NAME
// for one to __real_NAME, where the referring object does not define the
// symbol itself (ld wraps undefined references only).
func (r symbolRules) target(name string, definedHere bool) (string, error) {
	if rhs, ok := r.defsym[name]; ok {
		if rhs != "" {
			return rhs, nil
		}
		return name, nil // an address: the reference stays, the linker sets it
	}
	if definedHere {
		return name, nil
	}
	if r.wrap[name] {
		return "__wrap_" + name, nil
	}
	if real, ok := strings.CutPrefix(name, "__real_"); ok && r.wrap[real] {
		return real, nil
	}
	return name, nil
}

// resolveSymbols resolves the global symbols of the link's inputs (in load
// order) under rules.
func resolveSymbols(inputs []*Input, rules symbolRules) *symbolView {
	v := &symbolView{winner: map[string]*Input{}, sym: map[string]objSym{}, later: map[string][]*Input{}, rules: rules, entryUsers: map[string][]*Input{}}
	for _, in := range inputs {
		syms := nativeSyms(in)
		if in.LTO || in.Data == nil || in.SymErr != nil {
			v.entryUnknown = true
		}
		for _, s := range syms {
			if !s.defined {
				if strings.Contains(s.name, "__enzyme_") {
					v.entryUsers[s.name] = append(v.entryUsers[s.name], in)
				}
				continue
			}
			w, ok := v.sym[s.name]
			switch {
			case !ok, s.strong() && !w.strong():
				v.winner[s.name], v.sym[s.name] = in, s
			case s.strong() && w.strong() && !(s.comdat && w.comdat) && v.winner[s.name] != in:
				v.later[s.name] = append(v.later[s.name], in)
			}
		}
	}
	return v
}
