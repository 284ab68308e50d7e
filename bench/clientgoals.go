package main

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

// handGoal is the J/hand goal of a client-style workload.
func handGoal(workload string) float64 {
	switch workload {
	case "gmm-cxx", "lstm-cxx":
		return 1.2
	}
	return 1.5
}

// verdict says "met" when got ≤ goal, else by how much it misses.
func verdict(got, goal float64) string {
	if got <= goal {
		return "met"
	}
	return fmt.Sprintf("MISSED by %.2fx", got/goal)
}

// clientGoal is one figure of one case against its goal.
type clientGoal struct {
	figure    string // "J/hand", "J/ADOL-C", "FoR/RoF"
	got, goal float64
}

// clientGoals are the goals measured for case c (none for the C workloads).
func clientGoals(c *caseResult) []clientGoal {
	if !c.client {
		return nil
	}
	var out []clientGoal
	j, okJ := c.times["J"]
	if h, ok := c.times["hand"]; ok && okJ {
		out = append(out, clientGoal{"J/hand", j.seconds / h.seconds, handGoal(c.workload)})
	}
	if a, ok := c.times["adolc"]; ok && okJ {
		out = append(out, clientGoal{"J/ADOL-C", j.seconds / a.seconds, 1})
	}
	if r, ok := c.times["rof"]; ok && okJ {
		out = append(out, clientGoal{"FoR/RoF", j.seconds / r.seconds, 1})
	}
	return out
}

// formatClientGoals is the report's table of the client-style workloads'
// figures, each next to its goal.
func formatClientGoals(cs []*caseResult) string {
	var b strings.Builder
	for _, c := range cs {
		for _, g := range clientGoals(c) {
			if b.Len() == 0 {
				b.WriteString("\n### Client-style C++ workloads: each figure next to its goal\n\n")
				b.WriteString("J/hand: gozyme's gradient over the hand-written one; J/ADOL-C: over ADOL-C's (on its tape); ")
				b.WriteString("FoR/RoF (k-means): J and the Hessian diagonal by forward-over-reverse over the Hessian diagonal alone by reverse-over-forward.\n\n")
				b.WriteString("| case | figure | measured | goal | verdict |\n|---|---|---:|---:|---|\n")
			}
			fmt.Fprintf(&b, "| %s | %s | %.2f | ≤ %.2f | %s |\n", c.name, g.figure, g.got, g.goal, verdict(g.got, g.goal))
		}
	}
	return b.String()
}

// clientTargetLines are the same verdicts, a line per case, for the
// summary on stdout.
func clientTargetLines(cs []*caseResult) []string {
	var out []string
	for _, c := range cs {
		gs := clientGoals(c)
		if len(gs) == 0 {
			continue
		}
		parts := make([]string, len(gs))
		for i, g := range gs {
			parts[i] = fmt.Sprintf("%s %.2f (goal ≤ %.2g: %s)", g.figure, g.got, g.goal, verdict(g.got, g.goal))
		}
		out = append(out, c.name+": "+strings.Join(parts, ", "))
	}
	return out
}
