package adfuzz

import (
	"fmt"
	"regexp"
	"strings"
)

// Class is the outcome of building and running one program at one level.
type Class int

const (
	Pass           Class = iota
	LinkError            // the link stopped with a clean error naming a function
	InternalError        // a panic, an internal error, or a tool failing on gozyme's output
	WrongDeriv           // a derivative differs from its central difference
	PrimalMismatch       // the program's primal values differ from plain clang's
	Crash                // killed by a signal (or an unexpected exit status)
	Hang                 // the build or the run timed out
	Invalid              // the program itself is bad: plain clang rejects it, or its sanitizer run fails
	numClasses
)

var classNames = [numClasses]string{"pass", "link-error", "internal", "wrong-derivative", "primal-mismatch", "crash", "hang", "invalid-program"}

func (c Class) String() string {
	if c >= 0 && c < numClasses {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", int(c))
}

// AllClasses lists every class in order.
func AllClasses() []Class {
	cs := make([]Class, numClasses)
	for i := range cs {
		cs[i] = Class(i)
	}
	return cs
}

var (
	internalRE = regexp.MustCompile(`(?m)panic:|goroutine \d+|internal error|runtime error:|PLEASE submit a bug report|Assertion .* failed|verif(y|ier)|Stack dump:`)
	cleanRE    = regexp.MustCompile(`(?m)^gozyme-ld: error: .*cannot differentiate (the \S+ call in )?'[^']+'`)
	errorRE    = regexp.MustCompile(`(?m)^.*(error|panic)[: ].*$`)
)

// classifyBuild classifies a failed build from its output.
func classifyBuild(out string, timedOut bool) (Class, string) {
	if timedOut {
		return Hang, "the build timed out"
	}
	if m := internalRE.FindString(out); m != "" {
		return InternalError, firstLine(out, internalRE)
	}
	if cleanRE.MatchString(out) {
		return LinkError, firstLine(out, cleanRE)
	}
	return InternalError, firstLine(out, errorRE)
}

// classifyRun classifies a finished run of a program that built.
func classifyRun(out string, exit int, signal string, timedOut bool) (Class, string) {
	switch {
	case timedOut:
		return Hang, "the run timed out"
	case signal != "":
		return Crash, "killed by " + signal
	case exit == ExitWrongDeriv:
		return WrongDeriv, firstLine(out, regexp.MustCompile(`(?m)^MISMATCH .*$`))
	case exit == ExitPrimalChanged:
		return PrimalMismatch, firstLine(out, regexp.MustCompile(`(?m)^PRIMAL MISMATCH .*$`))
	case exit != 0:
		return Crash, fmt.Sprintf("exit status %d", exit)
	}
	return Pass, ""
}

// firstLine is the first line of out that re matches (the whole line), or
// the last non-empty line when none does.
func firstLine(out string, re *regexp.Regexp) string {
	for _, l := range strings.Split(out, "\n") {
		if re.MatchString(l) {
			return shorten(strings.TrimSpace(l))
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return shorten(strings.TrimSpace(lines[len(lines)-1]))
}

func shorten(s string) string {
	if len(s) > 240 {
		return s[:237] + "..."
	}
	return s
}

// primalLines are the "primal ..." lines a program prints.
func primalLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "primal ") {
			ls = append(ls, l)
		}
	}
	return ls
}

// comparePrimal reports the first difference between the primal values
// of a gozyme build and of the reference build ("" when they agree to
// 1e-9 relative).
func comparePrimal(got, want []string) string {
	if len(got) != len(want) {
		return fmt.Sprintf("the program printed %d primal values, the reference %d", len(got), len(want))
	}
	for i := range got {
		gf, wf := strings.Fields(got[i]), strings.Fields(want[i])
		if len(gf) != len(wf) || len(gf) < 3 || gf[1] != wf[1] {
			return fmt.Sprintf("%q vs reference %q", got[i], want[i])
		}
		var g, w float64
		fmt.Sscan(gf[2], &g)
		fmt.Sscan(wf[2], &w)
		if !(abs(g-w) <= 1e-9*(1+abs(w))) {
			return fmt.Sprintf("primal %s: %s, plain clang gives %s", gf[1], gf[2], wf[2])
		}
	}
	return ""
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

var sanitizerRE = regexp.MustCompile(`ERROR: |runtime error`)
