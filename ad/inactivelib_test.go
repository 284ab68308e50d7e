package ad

import (
	"strings"
	"testing"
)

// inactiveLibSrc differentiates functions that call library functions
// carrying no derivative (inactivelib.go): formatted output into a
// buffer and to a stream, string functions, the clock, random numbers,
// C++ streams; the gradient is the arithmetic's alone.
const inactiveLibSrc = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
double __enzyme_autodiff(void *, ...);
double f(double x) {
	char buf[64];
	snprintf(buf, sizeof buf, "x=%.3f", x);
	size_t n = strlen(buf);              /* characters carry nothing */
	if (strcmp(buf, "never") == 0) n++;
	fprintf(stderr, "%s\n", buf);
	double noise = rand() % 2 ? 0 : 0;   /* random numbers: constants */
	clock_t c = clock();
	(void)c;
	return x * x * (double)(n > 0) + noise + sin(x);
}
int main(void) {
	double x = 0.7, d = __enzyme_autodiff((void *)f, x), want = 2 * x + cos(x);
	int bad = fabs(d - want) > 1e-12;
	if (bad) printf("FAIL: %g, want %g\n", d, want);
	printf("failures %d\n", bad);
	return bad;
}
`

// inactiveStreamSrc is the same for C++ streams and std::string members.
const inactiveStreamSrc = `#include <iostream>
#include <sstream>
#include <string>
#include <cmath>
#include <cstdio>
template <typename... T> double __enzyme_autodiff(void *, T...);
double f(double x) {
	std::ostringstream s;
	s << "x = " << x;
	std::string t = s.str();
	std::cerr << t << std::endl;
	return x * x * (t.size() > 0 ? 3 : 0);
}
int main() {
	double x = 0.7, d = __enzyme_autodiff<double>((void *)f, x), want = 6 * x;
	int bad = std::fabs(d - want) > 1e-12;
	if (bad) std::printf("FAIL: %g, want %g\n", d, want);
	std::printf("failures %d\n", bad);
	return bad;
}
`

// TestInactiveLibraryCalls: library functions with no derivative (I/O,
// strings, time, random numbers, C++ streams, std::string's compiled
// members) are kept in the forward sweep and skipped in the reverse.
func TestInactiveLibraryCalls(t *testing.T) {
	t.Parallel()
	for _, o := range optLevels {
		if out := run(t, buildC(t, inactiveLibSrc, o, "-lm")); !strings.Contains(out, "failures 0") {
			t.Errorf("C -O%s: %s", o, out)
		}
		if out := run(t, buildCXX(t, inactiveStreamSrc, o)); !strings.Contains(out, "failures 0") {
			t.Errorf("C++ -O%s: %s", o, out)
		}
	}
}
