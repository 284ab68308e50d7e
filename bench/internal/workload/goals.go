package workload

import (
	"fmt"
	"strings"
)

// The goals of the client-style C++ workloads (bench/workloads/*/main.cpp,
// built as client code written for Enzyme is: templates over the scalar
// type, std::vector, small structs, lambdas; -O3 -march=native
// -fno-math-errno): each gradient within 1.5x of the hand-written one
// (GMM and LSTM within 1.2x) and faster than ADOL-C's; the k-means Hessian
// diagonal by forward-over-reverse no slower than reverse-over-forward.

// HandGoal is the J/hand goal of a client-style workload.
func HandGoal(workload string) float64 {
	switch workload {
	case "gmm-cxx", "lstm-cxx":
		return 1.2
	}
	return 1.5
}

// Verdict says "met" when got ≤ goal, else by how much it misses.
func Verdict(got, goal float64) string {
	if got <= goal {
		return "met"
	}
	return fmt.Sprintf("MISSED by %.2fx", got/goal)
}

// Goal is one figure of one case against its goal.
type Goal struct {
	Figure    string // "J/hand", "J/ADOL-C", "FoR/RoF"
	Got, Goal float64
}

// ClientGoals are the goals measured for case c (none for the C workloads).
func ClientGoals(c *Case) []Goal {
	if !c.Client {
		return nil
	}
	var out []Goal
	j, okJ := c.Times["J"]
	if h, ok := c.Times["hand"]; ok && okJ {
		out = append(out, Goal{"J/hand", j.Seconds / h.Seconds, HandGoal(c.Workload)})
	}
	if a, ok := c.Times["adolc"]; ok && okJ {
		out = append(out, Goal{"J/ADOL-C", j.Seconds / a.Seconds, 1})
	}
	if r, ok := c.Times["rof"]; ok && okJ {
		out = append(out, Goal{"FoR/RoF", j.Seconds / r.Seconds, 1})
	}
	return out
}

// FormatClientGoals is the report's table of the client-style workloads'
// figures, each next to its goal.
func FormatClientGoals(cs []*Case) string {
	var b strings.Builder
	for _, c := range cs {
		for _, g := range ClientGoals(c) {
			if b.Len() == 0 {
				b.WriteString("\n### Client-style C++ workloads: each figure next to its goal\n\n")
				b.WriteString("J/hand: gozyme's gradient over the hand-written one; J/ADOL-C: over ADOL-C's (on its tape); ")
				b.WriteString("FoR/RoF (k-means): J and the Hessian diagonal by forward-over-reverse over the Hessian diagonal alone by reverse-over-forward.\n\n")
				b.WriteString("| case | figure | measured | goal | verdict |\n|---|---|---:|---:|---|\n")
			}
			fmt.Fprintf(&b, "| %s | %s | %.2f | ≤ %.2f | %s |\n", c.Name, g.Figure, g.Got, g.Goal, Verdict(g.Got, g.Goal))
		}
	}
	return b.String()
}

// ClientTargetLines are the same verdicts, a line per case, for the
// summary on stdout.
func ClientTargetLines(cs []*Case) []string { return TargetLines(cs, ClientGoals) }

// TargetLines are the verdicts of goals(c), a line per case that has any.
func TargetLines(cs []*Case, goals func(*Case) []Goal) []string {
	var out []string
	for _, c := range cs {
		gs := goals(c)
		if len(gs) == 0 {
			continue
		}
		parts := make([]string, len(gs))
		for i, g := range gs {
			parts[i] = fmt.Sprintf("%s %.2f (goal ≤ %.2g: %s)", g.Figure, g.Got, g.Goal, Verdict(g.Got, g.Goal))
		}
		out = append(out, c.Name+": "+strings.Join(parts, ", "))
	}
	return out
}

// CHandGoal is the J/hand target of a C workload, 0 for none: GMM's and
// LSTM's gradients within 1.2x of the hand-written ones.
func CHandGoal(workload string) float64 {
	switch workload {
	case "gmm", "lstm":
		return 1.2
	}
	return 0
}

// Goals are the goals measured for any case: a client-style one's
// (ClientGoals); a C one's J/hand target (CHandGoal) and J/ADOL-C ≤ 1.
func Goals(c *Case) []Goal {
	if c.Client {
		return ClientGoals(c)
	}
	var out []Goal
	j, okJ := c.Times["J"]
	if h, ok := c.Times["hand"]; ok && okJ && CHandGoal(c.Workload) > 0 {
		out = append(out, Goal{"J/hand", j.Seconds / h.Seconds, CHandGoal(c.Workload)})
	}
	if a, ok := c.Times["adolc"]; ok && okJ {
		out = append(out, Goal{"J/ADOL-C", j.Seconds / a.Seconds, 1})
	}
	return out
}
