package irutil

import (
	"strings"
	"testing"
)

// TestVectorGEPUndefIndex: a vector getelementptr whose index vector has
// poison or undef lanes (the vectorizer's, for lanes nobody reads) parses,
// those lanes read as 0 and nothing else on other lines changes.
func TestVectorGEPUndefIndex(t *testing.T) {
	t.Parallel()
	src := `define <2 x double*> @f(<2 x double*> %v, i64 %k) {
  %g = getelementptr double, <2 x double*> %v, <2 x i64> <i64 4, i64 poison>
  %h = getelementptr inbounds double, <2 x double*> %g, <2 x i64> <i64 undef, i64 1>
  %s = select i1 true, i64 poison, i64 %k
  ret <2 x double*> %h
}
`
	m, err := ParseText("vgep.ll", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out := m.String()
	for _, want := range []string{"<2 x i64> <i64 4, i64 0>", "<2 x i64> <i64 0, i64 1>", "i64 poison, i64 %k"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
