package ad

import (
	"strings"
	"testing"
)

// TestLogIntoGlobalContainer: a differentiated function appends records
// holding the pointers it was given (pointers with shadows) to a log kept
// in a global, grown by realloc or by std::vector's push_back: the write
// goes to the global's storage or to a fresh reallocation, and neither
// gets a shadow (nothing differentiated reads the log back). The
// gradients match analytic values and the log holds the primal pointers.
func TestLogIntoGlobalContainer(t *testing.T) {
	src := checkPrelude + `
#include <string.h>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
typedef struct { const double *x, *y; int n; int in_derivative; } record;
record *records;
size_t nrecords, caprecords;
int in_derivative;
__attribute__((noinline)) static void log_call(const double *x, const double *y, int n) {
	if (nrecords == caprecords) {
		caprecords = caprecords ? 2 * caprecords : 1;
		records = realloc(records, caprecords * sizeof *records);
	}
	records[nrecords].x = x;
	records[nrecords].y = y;
	records[nrecords].n = n;
	records[nrecords].in_derivative = in_derivative;
	nrecords++;
}
__attribute__((noinline)) double dot(const double *x, const double *y, int n) {
	log_call(x, y, n);
	double s = 0;
	for (int i = 0; i < n; i++) s += x[i] * y[i];
	return s;
}
double energy(const double *x, const double *y, int n) {
	double d = dot(x, y, n);
	in_derivative = 1;
	return d * d + dot(x, x, n);
}
int main(void) {
	enum { N = 4 };
	double x[N] = {0.5, -1, 2, 0.25}, y[N] = {1.5, 0.5, -0.75, 2}, dx[N] = {0}, dy[N] = {0};
	__enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, N);
	double d = 0;
	for (int i = 0; i < N; i++) d += x[i] * y[i];
	for (int i = 0; i < N; i++) {
		CHECK("d energy / dx", dx[i], 2 * d * y[i] + 2 * x[i]);
		CHECK("d energy / dy", dy[i], 2 * d * x[i]);
	}
	CHECK("records logged", (double)nrecords, 2);
	CHECK("the log holds the primal x", records[0].x == x && records[1].x == x && records[1].y == x, 1);
	CHECK("and the primal y", records[0].y == y, 1);
	free(records);
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestChoiceWithGlobalReadBack: a pointer chosen between a global's
// storage and a local allocation, written with a derivative and the local
// allocation read back: the derivative would be lost on the global's path,
// so it is an error (as before), not a gradient missing that path.
func TestChoiceWithGlobalReadBack(t *testing.T) {
	src := `
#include <stdlib.h>
double __enzyme_autodiff(void *, ...);
double *shared_buf;
int use_shared;
__attribute__((noinline)) double f(double x) {
	double *local = malloc(sizeof(double));
	double *p = use_shared ? shared_buf : local;
	*p = x * x;
	double r = local[0];
	free(local);
	return r;
}
int main(void) { return __enzyme_autodiff((void *)f, 2.0) != 4.0; }
`
	for _, o := range []string{"0", "2"} {
		_, err := tryBuildC(t, src, o)
		if err == nil || !strings.Contains(err.Error(), "chosen between memory of a global without a shadow and the call to 'malloc', which the function reads back") {
			t.Errorf("-O%s: want an error, got %v", o, err)
		}
	}
}
