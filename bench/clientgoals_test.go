package main

import (
	"strings"
	"testing"
)

// TestClientGoals checks the client-style workloads' verdicts from made-up
// timings: GMM's J/hand against 1.2, another workload's against 1.5, ADOL-C
// against J, forward-over-reverse against reverse-over-forward; the C
// workloads have no such goals.
func TestClientGoals(t *testing.T) {
	cs := []*caseResult{
		{workload: "gmm-cxx", name: "gmm-cxx(d=10,k=25)", client: true, times: map[string]timing{"J": {seconds: 1.5}, "hand": {seconds: 1}, "adolc": {seconds: 3}}},
		{workload: "kmeans", name: "kmeans(k=1)", client: true, times: map[string]timing{"J": {seconds: 1.4}, "hand": {seconds: 1}, "rof": {seconds: 1}}},
		{workload: "gmm", name: "gmm(d=2,k=5)", times: map[string]timing{"J": {seconds: 1}, "hand": {seconds: 1}}},
	}
	want := []string{
		"gmm-cxx(d=10,k=25): J/hand 1.50 (goal ≤ 1.2: MISSED by 1.25x), J/ADOL-C 0.50 (goal ≤ 1: met)",
		"kmeans(k=1): J/hand 1.40 (goal ≤ 1.5: met), FoR/RoF 1.40 (goal ≤ 1: MISSED by 1.40x)",
	}
	if got := clientTargetLines(cs); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("clientTargetLines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	md := formatClientGoals(cs)
	for _, row := range []string{"| gmm-cxx(d=10,k=25) | J/hand | 1.50 | ≤ 1.20 | MISSED by 1.25x |", "| kmeans(k=1) | FoR/RoF | 1.40 | ≤ 1.00 | MISSED by 1.40x |"} {
		if !strings.Contains(md, row) {
			t.Errorf("formatClientGoals lacks %q:\n%s", row, md)
		}
	}
	if strings.Contains(md, "gmm(d=2,k=5)") {
		t.Errorf("formatClientGoals lists a C workload:\n%s", md)
	}
}
