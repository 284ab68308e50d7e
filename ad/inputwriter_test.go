package ad

import (
	"strings"
	"testing"
)

// An input routine (sscanf, std::istream's operator>>) overwriting a
// variable that carries a derivative would leave that derivative behind
// if skipped like other library calls: reverse and forward mode stop the
// link naming it. Read into a variable without derivatives and assigned
// from it, the value is an ordinary store and the gradient is right.
func TestInputIntoActiveMemory(t *testing.T) {
	t.Parallel()
	const body = `INCLUDE
extern "C" int enzyme_dup;
extern "C" void __enzyme_autodiff(void *, ...);
extern "C" double __enzyme_fwddiff(void *, ...);
__attribute__((noinline)) double f(double *x) {
  double t = x[0] * 2, e = t * t;
  READ
  return e + t * x[1];
}
int main(void) {
  double x[2] = {0.4, 1.3}, dx[2] = {0}, v[2] = {1, 0};
  __enzyme_autodiff((void *)f, x, dx);
  double fw = __enzyme_fwddiff((void *)f, enzyme_dup, x, v);
  printf("%.17g %.17g %.17g\n", dx[0], dx[1], fw);
  return 0;
}
`
	for _, c := range []struct{ file, include, read, fixed, callee string }{
		{"prog.c", "#include <stdio.h>", `sscanf("0.75", "%lf", &t);`, `double s; sscanf("0.75", "%lf", &s); t = s;`, "sscanf'"},
		{"prog.cc", "#include <cstdio>\n#include <sstream>", `std::istringstream in("0.75"); in >> t;`,
			`std::istringstream in("0.75"); double s; in >> s; t = s;`, "'_ZNSi"},
	} {
		src := strings.Replace(body, "INCLUDE", c.include, 1)
		if c.file == "prog.c" {
			src = strings.ReplaceAll(src, `extern "C" `, "")
		}
		for _, o := range []string{"0", "2"} {
			_, err := tryBuild(t, c.file, strings.Replace(src, "READ", c.read, 1), o)
			if err == nil || !strings.Contains(err.Error(), c.callee) || !strings.Contains(err.Error(), "reads input into memory that carries derivatives") {
				t.Errorf("%s -O%s: input into a variable with a derivative: %v, want the link stopped naming the input routine", c.file, o, err)
			}
			exe, err := tryBuild(t, c.file, strings.Replace(src, "READ", c.fixed, 1), o)
			if err != nil {
				t.Fatalf("%s -O%s: %v", c.file, o, err)
			}
			// f = (2 x0)^2 + 0.75 x1: the gradient (8 x0, 0.75), the tangent along (1, 0) 8 x0.
			got := strings.Fields(run(t, exe))
			want := []string{"3.2000000000000002", "0.75", "3.2000000000000002"}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s -O%s: gradient and tangent %v, want %v", c.file, o, got, want)
			}
		}
	}
}
