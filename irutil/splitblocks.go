package irutil

import (
	"fmt"
	"regexp"
	"strings"
)

// Long straight-line blocks (the derivative of a function of thousands of
// statements is one block of tens of thousands of instructions) make
// LLVM 14's code generator superlinear: SelectionDAG building, combining
// and scheduling, the machine scheduler and two-address pass work per
// block, and cost more than linearly in its size. SplitLongBlocks cuts such
// blocks into pieces that each end with a branch to the next, written as a
// switch without cases (`switch i32 0, label %next []`), which CodeGenPrepare
// leaves alone under -disable-cgp-branch-opts (it merges an unconditional
// branch into its successor). The program does the same: the pieces run in
// order and every value still dominates its uses.

// splitPrefix names the blocks SplitLongBlocks adds.
const splitPrefix = "gozyme.split."

// SplitLongBlocks cuts every basic block of text (a module as LLVM prints
// it) with more than limit instructions into pieces of about piece
// instructions. Phis naming a split block as their predecessor name its
// last piece, which holds its terminator. Cuts never separate a block's
// phis, landing pad or entry-block allocas from its start, nor a musttail
// call from its return. It returns the text and the number of blocks cut.
func SplitLongBlocks(text string, limit, piece int) (string, int, error) {
	if piece <= 0 || limit < piece {
		return text, 0, fmt.Errorf("SplitLongBlocks: piece %d, limit %d", piece, limit)
	}
	fresh := 0
	return mapFunctions(text, func(header string, body []string) ([]string, int, error) {
		return splitFunction(header, body, limit, piece, &fresh)
	})
}

// mapFunctions replaces the body of every function definition of text by
// what edit returns for it (its lines between the header and the closing
// '}'); it returns the text and the sum of the counts edit returned, and
// text itself where that sum is 0.
func mapFunctions(text string, edit func(header string, body []string) ([]string, int, error)) (string, int, error) {
	lines := strings.Split(text, "\n")
	out := make([]string, 0, len(lines)+len(lines)/64)
	total := 0
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "define ") || !strings.HasSuffix(strings.TrimSpace(lines[i]), "{") {
			out = append(out, lines[i])
			continue
		}
		end := i + 1
		for end < len(lines) && lines[end] != "}" {
			end++
		}
		if end == len(lines) {
			return text, 0, fmt.Errorf("a function body is not closed by a lone '}'")
		}
		body, n, err := edit(lines[i], lines[i+1:end])
		if err != nil {
			return text, 0, err
		}
		out = append(out, lines[i])
		out = append(out, body...)
		out = append(out, "}")
		total += n
		i = end
	}
	if total == 0 {
		return text, 0, nil
	}
	return strings.Join(out, "\n"), total, nil
}

// block is one basic block of a function body: its label ("" for an entry
// block without one), the label's line (-1: none) and its lines.
type block struct {
	label     string
	labelLine string
	lines     []string
}

// splitFunction splits the long blocks of one function body.
func splitFunction(header string, body []string, limit, piece int, fresh *int) ([]string, int, error) {
	var blocks []*block
	cur := &block{}
	for _, l := range body {
		if name, ok := blockLabel(l); ok {
			if cur.labelLine != "" || len(cur.lines) > 0 {
				blocks = append(blocks, cur)
			}
			cur = &block{label: name, labelLine: l}
			continue
		}
		cur.lines = append(cur.lines, l)
	}
	blocks = append(blocks, cur)
	if len(blocks) > 0 && blocks[0].labelLine == "" {
		n, err := entryNumber(header)
		if err != nil {
			return nil, 0, err
		}
		blocks[0].label = n
	}
	renamed := map[string]string{} // block label -> label of its last piece
	var out []string
	for bi, b := range blocks {
		if b.labelLine != "" {
			out = append(out, b.labelLine)
		}
		if countInstructions(b.lines) <= limit {
			out = append(out, b.lines...)
			continue
		}
		count, last := 0, b.label
		first := 0 // no cut before the entry block's allocas and localescape
		if bi == 0 {
			first = entryPrologue(b.lines)
		}
		for k, l := range b.lines {
			if count >= piece && k > first && cuttable(b.lines, k) {
				*fresh++
				next := fmt.Sprintf("%s%d", splitPrefix, *fresh)
				out = append(out, fmt.Sprintf("  switch i32 0, label %%%s []", next), next+":")
				count, last = 0, next
			}
			out = append(out, l)
			if isInstruction(l) {
				count++
			}
		}
		if last != b.label {
			renamed[b.label] = last
		}
	}
	if len(renamed) == 0 {
		return body, 0, nil
	}
	for i, l := range out {
		if strings.Contains(l, " = phi ") {
			out[i] = renamePhiBlocks(l, renamed)
		}
	}
	return out, len(renamed), nil
}

// labelLine matches a block label as LLVM prints it: a name or number, or
// a quoted name, then ':' (and maybe a "; preds" comment).
var labelLine = regexp.MustCompile(`^(?:([-a-zA-Z$._0-9]+)|"((?:[^"\\]|\\.)*)"):`)

// blockLabel returns the %-name a label line defines ("5", "for.body",
// `"a b"` quoted as in references).
func blockLabel(l string) (string, bool) {
	if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == ';' {
		return "", false
	}
	m := labelLine.FindStringSubmatch(l)
	if m == nil {
		return "", false
	}
	if m[1] != "" {
		return m[1], true
	}
	return `"` + m[2] + `"`, true
}

// isInstruction reports whether a body line starts an instruction: LLVM
// indents instructions by two spaces, and the lines that continue one (a
// switch's cases and its closing bracket, an invoke's labels, a landing
// pad's clauses) by more, or with ']'.
func isInstruction(l string) bool {
	if len(l) < 3 || l[0] != ' ' || l[1] != ' ' {
		return false
	}
	c := l[2]
	return c != ' ' && c != '\t' && c != ';' && c != ']'
}

func countInstructions(lines []string) int {
	n := 0
	for _, l := range lines {
		if isInstruction(l) {
			n++
		}
	}
	return n
}

// entryPrologue is the index of the entry block's last alloca or
// llvm.localescape call (-1: none): they must stay in the entry block.
func entryPrologue(lines []string) int {
	last := -1
	for k, l := range lines {
		if isInstruction(l) && (opcode(strings.TrimSpace(l)) == "alloca" || strings.Contains(l, "@llvm.localescape")) {
			last = k
		}
	}
	return last
}

// cuttable reports whether a block may be cut before lines[k]: an
// instruction that is not a phi, landing pad or other pad, nor a return
// after a musttail call, and with instructions after it (the terminator
// stays with what precedes it).
func cuttable(lines []string, k int) bool {
	if !isInstruction(lines[k]) {
		return false
	}
	switch opcode(strings.TrimSpace(lines[k])) {
	case "phi", "landingpad", "catchpad", "cleanuppad", "catchswitch":
		return false
	}
	for j := k - 1; j >= 0; j-- {
		if isInstruction(lines[j]) {
			if strings.Contains(lines[j], "musttail call ") {
				return false
			}
			break
		}
	}
	for j := k + 1; j < len(lines); j++ {
		if isInstruction(lines[j]) {
			return true
		}
	}
	return false // l is the terminator
}

// opcode returns an instruction's opcode word.
func opcode(l string) string {
	if strings.HasPrefix(l, "%") {
		if i := strings.Index(l, " = "); i >= 0 {
			l = l[i+3:]
		}
	}
	if i := strings.IndexByte(l, ' '); i >= 0 {
		return l[:i]
	}
	return l
}

// renamePhiBlocks renames the incoming blocks of a phi.
func renamePhiBlocks(l string, renamed map[string]string) string {
	var b strings.Builder
	for {
		i := strings.Index(l, ", %")
		if i < 0 {
			b.WriteString(l)
			return b.String()
		}
		b.WriteString(l[:i+3])
		l = l[i+3:]
		n := 0
		if strings.HasPrefix(l, `"`) {
			n = skipString(l, 0)
		} else {
			for n < len(l) && isNameChar(l[n]) {
				n++
			}
		}
		name, rest := l[:n], l[n:]
		if to, ok := renamed[name]; ok && strings.HasPrefix(strings.TrimLeft(rest, " "), "]") {
			name = to
		}
		b.WriteString(name)
		l = rest
	}
}

// entryNumber is the number LLVM gives an entry block printed without a
// label: the one after the function's unnamed parameters.
func entryNumber(header string) (string, error) {
	_, _, open := headerName(header)
	if open < 0 {
		return "", fmt.Errorf("cannot read the parameters of %q", header)
	}
	end := MatchClose(header, open)
	if end < 0 {
		return "", fmt.Errorf("cannot read the parameters of %q", header)
	}
	n := 0
	for _, p := range SplitTopLevel(header[open+1:end-1], ',') {
		p = strings.TrimSpace(p)
		i := strings.LastIndexByte(p, ' ')
		if i < 0 || !strings.HasPrefix(p[i+1:], "%") {
			continue // "..." or a parameter without a name
		}
		name := p[i+2:]
		if name != "" && strings.Trim(name, "0123456789") == "" {
			n++
		}
	}
	return fmt.Sprint(n), nil
}

// StripMarkedAttributes removes words from the attribute groups (lines
// `attributes #N = { ... }`) that hold marker, and marker itself: how a
// hint given to the optimizer for some functions is taken back before code
// generation.
func StripMarkedAttributes(text, marker string, words ...string) string {
	if !strings.Contains(text, marker) {
		return text
	}
	drop := map[string]bool{marker: true}
	for _, w := range words {
		drop[w] = true
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "attributes #") || !strings.Contains(l, marker) {
			continue
		}
		open, close := strings.IndexByte(l, '{'), strings.LastIndexByte(l, '}')
		if open < 0 || close < open {
			continue
		}
		var kept []string
		for _, w := range irTokens(l[open+1 : close]) {
			if !drop[w] {
				kept = append(kept, w)
			}
		}
		lines[i] = l[:open+1] + " " + strings.Join(kept, " ") + " " + l[close:]
	}
	return strings.Join(lines, "\n")
}

// LargestFunction returns the number of instructions of the largest
// function of text whose header line only accepts (all where only is nil).
func LargestFunction(text string, only func(header string) bool) int {
	largest := 0
	mapFunctions(text, func(header string, body []string) ([]string, int, error) {
		if only == nil || only(header) {
			largest = max(largest, countInstructions(body))
		}
		return body, 0, nil
	})
	return largest
}
