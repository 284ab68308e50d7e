package workload

import (
	"strings"
	"testing"
)

// TestClientGoals checks the client-style workloads' verdicts from made-up
// timings: GMM's J/hand against 1.2, another workload's against 1.5, ADOL-C
// against J, forward-over-reverse against reverse-over-forward; the C
// workloads have no such goals.
func TestClientGoals(t *testing.T) {
	cs := []*Case{
		{Workload: "gmm-cxx", Name: "gmm-cxx(d=10,k=25)", Client: true, Times: map[string]Timing{"J": {Seconds: 1.5}, "hand": {Seconds: 1}, "adolc": {Seconds: 3}}},
		{Workload: "kmeans", Name: "kmeans(k=1)", Client: true, Times: map[string]Timing{"J": {Seconds: 1.4}, "hand": {Seconds: 1}, "rof": {Seconds: 1}}},
		{Workload: "gmm", Name: "gmm(d=2,k=5)", Times: map[string]Timing{"J": {Seconds: 1}, "hand": {Seconds: 1}}},
	}
	want := []string{
		"gmm-cxx(d=10,k=25): J/hand 1.50 (goal ≤ 1.2: MISSED by 1.25x), J/ADOL-C 0.50 (goal ≤ 1: met)",
		"kmeans(k=1): J/hand 1.40 (goal ≤ 1.5: met), FoR/RoF 1.40 (goal ≤ 1: MISSED by 1.40x)",
	}
	if got := ClientTargetLines(cs); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("ClientTargetLines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	md := FormatClientGoals(cs)
	for _, row := range []string{"| gmm-cxx(d=10,k=25) | J/hand | 1.50 | ≤ 1.20 | MISSED by 1.25x |", "| kmeans(k=1) | FoR/RoF | 1.40 | ≤ 1.00 | MISSED by 1.40x |"} {
		if !strings.Contains(md, row) {
			t.Errorf("FormatClientGoals lacks %q:\n%s", row, md)
		}
	}
	if strings.Contains(md, "gmm(d=2,k=5)") {
		t.Errorf("FormatClientGoals lists a C Workload:\n%s", md)
	}
}
