// Package typeanalysis finds what the bytes of values and memory hold —
// integers, pointers or floating point of which width — whatever the IR
// types say, as Enzyme's TypeAnalysis does: clang and LLVM move doubles as
// i64 (memcpy of 8 bytes, struct copies, std::copy), as <2 x i64>, through
// integer arguments and byte buffers, and an AD engine that follows IR
// types alone drops their derivatives.
//
// Every value of the analyzed functions gets a Tree: what each byte offset
// of the value holds and, for pointers, what the memory they point to holds
// at byte offsets from the pointer (recursively). Facts come from what is
// certain (a float-typed value is a float, a load of double reads a double,
// integer arithmetic works on integers, malloc returns a pointer) and
// travel along data flow in both directions — from definitions to uses and
// from uses to definitions — through loads, stores, memcpy, casts, phis,
// aggregates, calls and returns, to a fixed point over all the functions
// reached from the roots. TBAA tags and typed-pointer element types are
// hints, used only where the certain facts leave a location unknown.
package typeanalysis

import (
	"github.com/llir/llvm/ir/types"
)

// Concrete is what one byte offset holds: nothing known, an integer, a
// pointer, a float of one of the IR's widths, or Anything (facts that
// conflict: the bytes are used as two different things).
type Concrete uint8

const (
	Unknown Concrete = iota
	Integer
	Pointer
	Half
	Float
	Double
	X86FP80
	FP128
	Anything
)

var concreteNames = [...]string{"Unknown", "Integer", "Pointer", "Float@half", "Float@float", "Float@double", "Float@x86_fp80", "Float@fp128", "Anything"}

func (c Concrete) String() string {
	if int(c) < len(concreteNames) {
		return concreteNames[c]
	}
	return "?"
}

// IsFloat reports a floating-point type.
func (c Concrete) IsFloat() bool { return c >= Half && c <= FP128 }

// Join is what a location holds when both c and d are true of it: the
// known one where the other is Unknown, Anything where they conflict.
func (c Concrete) Join(d Concrete) Concrete {
	switch {
	case c == d || d == Unknown:
		return c
	case c == Unknown:
		return d
	}
	return Anything
}

// Size is how many bytes a fact at an offset covers: the width of a
// pointer or float (x86_fp80: its 10 bytes of data), one byte for
// integers (their bytes can be split and joined) and conflicts.
func (c Concrete) Size() int64 {
	switch c {
	case Pointer, Double:
		return 8
	case Half:
		return 2
	case Float:
		return 4
	case X86FP80:
		return 10
	case FP128:
		return 16
	}
	return 1
}

// FloatType is the IR type of a float Concrete, nil otherwise.
func (c Concrete) FloatType() *types.FloatType {
	switch c {
	case Half:
		return types.Half
	case Float:
		return types.Float
	case Double:
		return types.Double
	case X86FP80:
		return types.X86_FP80
	case FP128:
		return types.FP128
	}
	return nil
}

// FromFloat is the Concrete of an IR float type (Unknown for ppc_fp128).
func FromFloat(t *types.FloatType) Concrete {
	switch t.Kind {
	case types.FloatKindHalf:
		return Half
	case types.FloatKindFloat:
		return Float
	case types.FloatKindDouble:
		return Double
	case types.FloatKindX86_FP80:
		return X86FP80
	case types.FloatKindFP128:
		return FP128
	}
	return Unknown
}
