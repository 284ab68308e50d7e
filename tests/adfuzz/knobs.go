package adfuzz

import (
	"fmt"
	"sort"
	"strings"
)

// Knob is one feature the generator can put into a program.
type Knob int

const (
	KnobLibm        Knob = iota // straight-line arithmetic with libm calls and scalar helpers
	KnobStruct                  // structs and arrays of structs, by pointer and by value
	KnobConstStruct             // a struct passed enzyme_const holding pointers to constant arrays
	KnobDataCount               // loops whose trip counts earlier loops computed (and reset)
	KnobNested                  // nested loops (rectangular, triangular, data-bounded)
	KnobInPlace                 // a[i] = f(a[i]) repeatedly, on the input or a work array
	KnobIntCopy                 // doubles copied through integers and bytes in noinline helpers
	KnobMemcpy                  // memcpy / memmove of structs and arrays
	KnobLocalConst              // local arrays initialized with constants, modified by helpers
	KnobRealloc                 // realloc-grown buffers with conditional pushes
	KnobRecursion               // bounded recursion (linear and divide and conquer)
	KnobFnPtr                   // function pointers called through small constant tables
	KnobCXX                     // C++: std::vector, classes with operators, lambdas, templates
	KnobPtrSwap                 // pointers to active buffers swapped, rotated, copied and selected in memory
	numKnobs
)

var knobNames = [numKnobs]string{
	"libm", "struct", "conststruct", "datacount", "nested", "inplace", "intcopy",
	"memcpy", "localconst", "realloc", "recursion", "fnptr", "cxx", "ptrswap",
}

func (k Knob) String() string {
	if k >= 0 && k < numKnobs {
		return knobNames[k]
	}
	return fmt.Sprintf("knob(%d)", int(k))
}

// AllKnobs lists every knob in order.
func AllKnobs() []Knob {
	ks := make([]Knob, numKnobs)
	for i := range ks {
		ks[i] = Knob(i)
	}
	return ks
}

// Mode is one way a program calls the AD engine.
type Mode int

const (
	ModeReverse Mode = iota // __enzyme_autodiff
	ModeForward             // __enzyme_fwddiff, one call per input direction
	ModeSplit               // __enzyme_augmentfwd then __enzyme_reverse
	ModeBatch               // __enzyme_fwddiff with enzyme_width
	numModes
)

var modeNames = [numModes]string{"reverse", "forward", "split", "batch"}

func (m Mode) String() string {
	if m >= 0 && m < numModes {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// AllModes lists every mode in order.
func AllModes() []Mode {
	ms := make([]Mode, numModes)
	for i := range ms {
		ms[i] = Mode(i)
	}
	return ms
}

// KnobSet is a set of knobs.
type KnobSet uint32

// Has reports whether k is in the set.
func (s KnobSet) Has(k Knob) bool { return s&(1<<uint(k)) != 0 }

// With is the set plus k.
func (s KnobSet) With(k Knob) KnobSet { return s | 1<<uint(k) }

// Knobs lists the set's knobs in order.
func (s KnobSet) Knobs() []Knob {
	var ks []Knob
	for _, k := range AllKnobs() {
		if s.Has(k) {
			ks = append(ks, k)
		}
	}
	return ks
}

func (s KnobSet) String() string { return joinNames(s.Knobs()) }

// ModeSet is a set of modes.
type ModeSet uint32

// Has reports whether m is in the set.
func (s ModeSet) Has(m Mode) bool { return s&(1<<uint(m)) != 0 }

// With is the set plus m.
func (s ModeSet) With(m Mode) ModeSet { return s | 1<<uint(m) }

// Modes lists the set's modes in order.
func (s ModeSet) Modes() []Mode {
	var ms []Mode
	for _, m := range AllModes() {
		if s.Has(m) {
			ms = append(ms, m)
		}
	}
	return ms
}

func (s ModeSet) String() string { return joinNames(s.Modes()) }

func joinNames[T fmt.Stringer](xs []T) string {
	names := make([]string, len(xs))
	for i, x := range xs {
		names[i] = x.String()
	}
	return strings.Join(names, ",")
}

// ParseKnobs reads a comma-separated list of knob names ("" is the empty set).
func ParseKnobs(list string) (KnobSet, error) {
	var s KnobSet
	for _, name := range splitList(list) {
		found := false
		for _, k := range AllKnobs() {
			if k.String() == name {
				s, found = s.With(k), true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown knob %q (knobs: %s)", name, joinNames(AllKnobs()))
		}
	}
	return s, nil
}

// ParseModes reads a comma-separated list of mode names ("" is the empty set).
func ParseModes(list string) (ModeSet, error) {
	var s ModeSet
	for _, name := range splitList(list) {
		found := false
		for _, m := range AllModes() {
			if m.String() == name {
				s, found = s.With(m), true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown mode %q (modes: %s)", name, joinNames(AllModes()))
		}
	}
	return s, nil
}

func splitList(list string) []string {
	var out []string
	for _, f := range strings.Split(list, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}
