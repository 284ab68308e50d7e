// Package irutil is gozyme's layer over llir: loading LLVM 14 modules with the
// fixups llir needs, and the small IR surgery the AD engine relies on
// (cloning, cast stripping, CFG facts, ID renumbering).
package irutil

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/asm"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// LoadFile parses an IR file: text (a name ending in .ll) or bitcode
// (ReadText).
func LoadFile(ctx context.Context, path string) (*ir.Module, error) {
	text, err := ReadText(ctx, path)
	if err != nil {
		return nil, err
	}
	return ParseText(path, text)
}

// ReadText returns the text of an IR file: a text file (a name ending in
// .ll) as it is, bitcode disassembled with llvm-dis-14. The text goes
// through a temporary file, read in one piece: read from a pipe, several
// megabytes of a large module's text grow a buffer by doubling.
func ReadText(ctx context.Context, path string) ([]byte, error) {
	if strings.HasSuffix(path, ".ll") {
		return os.ReadFile(path)
	}
	f, err := os.CreateTemp("", "gozyme-dis-*.ll")
	if err != nil {
		return nil, err
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp)
	if out, err := toolchains.Run(ctx, "llvm-dis", "-o", tmp, path); err != nil {
		return out, err
	}
	return os.ReadFile(tmp)
}

// LoadBitcode disassembles a bitcode file with llvm-dis-14 and parses it.
func LoadBitcode(ctx context.Context, bcPath string) (*ir.Module, error) {
	text, err := toolchains.Run(ctx, "llvm-dis", "-o", "-", bcPath)
	if err != nil {
		return nil, err
	}
	return ParseText(bcPath, text)
}

// ParseText parses LLVM 14 textual IR after applying the fixups llir v0.3.6
// needs (see DESIGN.md; and fp128 constants, swapQuadHalves), and repairs
// what llir gets wrong after parsing.
func ParseText(name string, text []byte) (*ir.Module, error) {
	fixed := swapQuadHalves(FixupText(string(text)))
	m, err := asm.ParseString(name, fixed)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read IR: %v", name, err)
	}
	repairCmpXchg(m)
	return m, nil
}

// quadLiteral matches an fp128 constant: 0xL and 32 hex digits.
var quadLiteral = regexp.MustCompile(`\b0xL([0-9A-Fa-f]{16})([0-9A-Fa-f]{16})\b`)

// swapQuadHalves swaps the 64-bit halves of every fp128 constant in IR
// text. LLVM writes an fp128 constant's low word first; llir v0.3.6 reads
// and writes the high word first. Swapped on the way in, llir holds the
// value LLVM meant (a low word that reads as a NaN's high word no longer
// turns the constant into a NaN); swapped on the way out (writeText), the
// constants llir writes, those gozyme builds from a value included, reach
// LLVM as meant (the return seed 1.0 was a denormal). The swap is its own
// inverse, so text llir passes through unparsed (a string) is unchanged.
func swapQuadHalves(text string) string {
	if !strings.Contains(text, "0xL") {
		return text
	}
	return quadLiteral.ReplaceAllString(text, "0xL${2}${1}")
}

// returnAlign matches an `align N` return attribute: it stands between the
// keyword that opens a definition, declaration or call and the callee.
var returnAlign = regexp.MustCompile(`^(\s*(?:%[-\w.$]+ = )?(?:tail |musttail |notail )?(?:define|declare|call|invoke)\b[^@%(]*?) align \d+`)

// undefIndex matches an undef or poison integer, as an index of a
// getelementptr.
var undefIndex = regexp.MustCompile(`\b(i\d+) (?:poison|undef)\b`)

// FixupText rewrites constructs llir v0.3.6 cannot parse:
//   - `align N` as a return attribute (C++ functions returning references);
//   - the DISPFlagDeleted subprogram flag, which llir prints back empty;
//   - undef or poison lanes of a vector getelementptr's index vector
//     (vectorized code, `<2 x i64> <i64 4, i64 poison>`), on which its
//     parser panics: they become 0 on a line holding a getelementptr (a
//     refinement of the value; on such a line undef or poison integers are
//     such indices or arguments beside them, which any value refines);
//   - constant expressions other than ptrtoint as a getelementptr
//     instruction's index, on which its parser panics too: computed by an
//     instruction before (hoistConstIndices).
func FixupText(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.Contains(l, "= getelementptr ") && strings.Contains(l, " (") {
			if h := hoistConstIndices(l, i); len(h) > 1 {
				l = strings.Join(h, "\n")
				lines[i] = l
			}
		}
		if strings.Contains(l, "getelementptr") && (strings.Contains(l, " poison") || strings.Contains(l, " undef")) {
			l = undefIndex.ReplaceAllString(l, "$1 0")
			lines[i] = l
		}
		if strings.Contains(l, " align ") && (strings.HasPrefix(l, "define") || strings.HasPrefix(l, "declare") ||
			strings.Contains(l, "call ") || strings.Contains(l, "invoke ")) {
			for {
				n := returnAlign.ReplaceAllString(l, "$1")
				if n == l {
					break
				}
				l = n
			}
			lines[i] = l
		}
		if strings.Contains(l, "DISPFlagDeleted") {
			l = strings.ReplaceAll(l, "DISPFlagDeleted | ", "")
			l = strings.ReplaceAll(l, " | DISPFlagDeleted", "")
			l = strings.ReplaceAll(l, ", spFlags: DISPFlagDeleted", "")
			lines[i] = l
		}
	}
	return strings.Join(lines, "\n")
}

// repairCmpXchg gives cmpxchg its LLVM result type {T, i1}; llir computes {T, i8}.
func repairCmpXchg(m *ir.Module) {
	for _, f := range m.Funcs {
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCmpXchg); ok {
					c.Typ = types.NewStruct(c.New.Type(), types.I1)
				}
			}
		}
	}
}

// WriteText renumbers unnamed values in every function definition and writes
// the module as LLVM textual IR.
func WriteText(m *ir.Module, path string) error { return writeText(m, path, "") }

// writeText is WriteText with tail appended to the module's text.
func writeText(m *ir.Module, path, tail string) error {
	for _, f := range m.Funcs {
		if err := Renumber(f); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(swapQuadHalves(m.String())+tail), 0o644)
}

// Renumber resets the IDs of a function's unnamed parameters, blocks and
// instructions and assigns them afresh in order, as LLVM requires after
// values are inserted.
func Renumber(f *ir.Func) error {
	if len(f.Blocks) == 0 {
		return nil
	}
	for _, p := range f.Params {
		if p.IsUnnamed() {
			p.SetID(0)
		}
	}
	for _, b := range f.Blocks {
		if b.IsUnnamed() {
			b.SetID(0)
		}
		for _, inst := range b.Insts {
			if n, ok := inst.(interface {
				IsUnnamed() bool
				SetID(int64)
			}); ok && n.IsUnnamed() {
				n.SetID(0)
			}
		}
		if n, ok := b.Term.(interface {
			IsUnnamed() bool
			SetID(int64)
		}); ok && n.IsUnnamed() {
			n.SetID(0)
		}
	}
	return f.AssignIDs()
}
