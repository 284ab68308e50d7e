package e2e

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hugeStatements is the size of the generated function: enough for its
// derivative to take the huge-function path (lto/huge.go), small enough to
// link in seconds.
const hugeStatements = 3000

// hugeStatement is statement i of the generated function: the C text and
// its effect on (a, b) with their gradients over x, written out by hand.
type hugeStatement struct {
	kind, p, q int
	c          float64
}

func hugeProgram(n int) ([]hugeStatement, string) {
	var b strings.Builder
	b.WriteString("#include <math.h>\n#include <stdio.h>\ndouble __enzyme_autodiff(void *, ...);\n")
	b.WriteString("double f(const double *x) {\n  double a = x[0], b = x[1];\n")
	var stmts []hugeStatement
	for i := 0; i < n; i++ {
		s := hugeStatement{kind: i % 3, p: (7*i + 2) % 8, q: (3*i + 1) % 8, c: float64(i%97+1) * 1e-3}
		c := strconv.FormatFloat(s.c, 'g', -1, 64)
		switch s.kind {
		case 0:
			fmt.Fprintf(&b, "  a = a * 0.999 + %s * sin(x[%d]) * x[%d];\n", c, s.p, s.q)
		case 1:
			fmt.Fprintf(&b, "  b = b * 0.998 + %s * a * x[%d];\n", c, s.p)
		case 2:
			fmt.Fprintf(&b, "  a = a + %s * cos(b) * x[%d];\n", c, s.p)
		}
		stmts = append(stmts, s)
	}
	b.WriteString("  return a + b;\n}\n")
	b.WriteString(`int main(void) {
  double x[8] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}, dx[8] = {0};
  __enzyme_autodiff((void *)f, x, dx);
  printf("%.17g\n", f(x));
  for (int i = 0; i < 8; i++) printf("%.17g\n", dx[i]);
  return 0;
}
`)
	return stmts, b.String()
}

// hugeGradient evaluates the generated function and its gradient at x,
// carrying d(a)/dx and d(b)/dx through each statement by the chain rule.
func hugeGradient(stmts []hugeStatement, x [8]float64) (float64, [8]float64) {
	a, b := x[0], x[1]
	var da, db [8]float64
	da[0], db[1] = 1, 1
	for _, s := range stmts {
		switch s.kind {
		case 0: // a = 0.999 a + c sin(x_p) x_q
			for k := range da {
				da[k] *= 0.999
			}
			da[s.p] += s.c * math.Cos(x[s.p]) * x[s.q]
			da[s.q] += s.c * math.Sin(x[s.p])
			a = a*0.999 + s.c*math.Sin(x[s.p])*x[s.q]
		case 1: // b = 0.998 b + c a x_p
			for k := range db {
				db[k] = 0.998*db[k] + s.c*x[s.p]*da[k]
			}
			db[s.p] += s.c * a
			b = b*0.998 + s.c*a*x[s.p]
		case 2: // a = a + c cos(b) x_p
			for k := range da {
				da[k] -= s.c * math.Sin(b) * x[s.p] * db[k]
			}
			da[s.p] += s.c * math.Cos(b)
			a = a + s.c*math.Cos(b)*x[s.p]
		}
	}
	var g [8]float64
	for k := range g {
		g[k] = da[k] + db[k]
	}
	return a + b, g
}

// TestHugeFunction differentiates one function of hugeStatements
// straight-line statements: the link takes the huge-function path (its
// optimizer after AD runs as a stage of its own, its long blocks are cut)
// and the gradient matches the analytic one.
func TestHugeFunction(t *testing.T) {
	setup(t)
	dir := t.TempDir()
	stmts, src := hugeProgram(hugeStatements)
	if err := os.WriteFile(filepath.Join(dir, "huge.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	env := toolEnv("GOZYME_TIMES=1")
	linkEnv := toolEnv("GOZYME_TIMES=1", "GOZYME_VERBOSE=1")
	run(t, dir, env, tool("gozyme-cc"), "-O2", "-c", "huge.c", "-o", "huge.o")
	var stderr string
	timed(t, "link", func() {
		var err error
		_, stderr, err = runErr(dir, linkEnv, tool("gozyme-cc"), "-O2", "huge.o", "-o", "huge", "-lm")
		if err != nil {
			t.Fatalf("link: %v\n%s", err, stderr)
		}
	})
	if !strings.Contains(stderr, "gozyme-ld: time optimize after AD ") || !strings.Contains(stderr, "-disable-cgp-branch-opts") {
		t.Errorf("the link did not take the huge-function path or cut no blocks:\n%s", stderr)
	}
	out := strings.Fields(run(t, dir, env, filepath.Join(dir, "huge")))
	if len(out) != 9 {
		t.Fatalf("want f and 8 derivatives, got %q", out)
	}
	x := [8]float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}
	f, g := hugeGradient(stmts, x)
	want := append([]float64{f}, g[:]...)
	for i, s := range out {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("output %q: %v", s, err)
		}
		if d := math.Abs(v - want[i]); d > 1e-9*math.Max(1, math.Abs(want[i])) {
			t.Errorf("value %d (0: f, then df/dx[%d]): got %.17g, want %.17g", i, i-1, v, want[i])
		}
	}
}
