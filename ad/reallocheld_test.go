package ad

import (
	"strings"
	"testing"
)

// TestReallocHeldInStruct: a buffer grown by realloc and kept in a struct
// field (`b->data = realloc(b->data, ...)`, read back as double *), pushed
// to once or twice per iteration depending on the data and summed by a
// noinline helper. The realloc'd block's element type is only seen through
// the struct field: the adjoints of the values stored before each move
// must go back to the old shadow (they were dropped, as if the block held
// no floats). Combined and split mode against central differences, at
// every level, and leak-checked.
func TestReallocHeldInStruct(t *testing.T) {
	src := checkPrelude + `
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
typedef struct { double *data; int n, cap; } buf;
#define PUSH(b, v) do { \
		if ((b)->n == (b)->cap) { \
			(b)->cap = (b)->cap ? 2 * (b)->cap : 2; \
			(b)->data = realloc((b)->data, (b)->cap * sizeof *(b)->data); \
		} \
		(b)->data[(b)->n++] = (v); \
	} while (0)
__attribute__((noinline)) static double total(const buf *b) {
	double s = 0;
	for (int i = 0; i < b->n; i++) s += b->data[i] * (i + 1);
	return s;
}
double pushes(const double *x, int n) {
	buf b = {0, 0, 0};
	for (int i = 0; i < n; i++) {
		PUSH(&b, sin(x[i]) * x[i]);
		if (x[i] > 0.5) PUSH(&b, x[i] * x[i]);
	}
	double s = total(&b);
	free(b.data);
	return s;
}
int main(void) {
	enum { N = 9 };
	double x[N], dx[N] = {0}, ds[N] = {0};
	for (int i = 0; i < N; i++) x[i] = 0.2 + 0.13 * i;
	__enzyme_autodiff((void *)pushes, enzyme_dup, x, dx, enzyme_const, N);
	void *tape = __enzyme_augmentfwd((void *)pushes, enzyme_dup, x, ds, enzyme_const, N);
	__enzyme_reverse((void *)pushes, enzyme_dup, x, ds, enzyme_const, N, 1.0, tape);
	for (int i = 0; i < N; i++) {
		double h = 1e-6, s = x[i];
		x[i] = s + h; double fp = pushes(x, N);
		x[i] = s - h; double fm = pushes(x, N);
		x[i] = s;
		char what[32];
		snprintf(what, sizeof what, "dx[%d]", i);
		check(what, dx[i], (fp - fm) / (2 * h), 1e-6);
		snprintf(what, sizeof what, "split dx[%d]", i);
		check(what, ds[i], (fp - fm) / (2 * h), 1e-6);
	}
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			checkWants(t, run(t, buildC(t, src, o)), "-O"+o, []string{"ok dx[8]", "ok split dx[8]"})
		})
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "1")) })
}

// TestReallocBytesUnknown: doubles copied into a realloc'd char buffer at
// byte offsets: nothing proves where the floats sit in the block, so the
// link stops with an error naming the realloc instead of treating the
// block as holding no floats (a zero gradient for everything stored before
// the last move).
func TestReallocBytesUnknown(t *testing.T) {
	src := `
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double bytes(const double *x, int n) {
	char *buf = NULL;
	for (int i = 0; i < n; i++) {
		buf = realloc(buf, 8 * (i + 1));
		double v = x[i] * x[i];
		memcpy(buf + 8 * i, &v, 8);
	}
	double s = 0;
	for (int i = 0; i < n; i++) { double v; memcpy(&v, buf + 8 * i, 8); s += v * (i + 1); }
	free(buf);
	return s;
}
int main(void) {
	double x[5] = {1, 2, 3, 4, 5}, dx[5] = {0};
	__enzyme_autodiff((void *)bytes, enzyme_dup, x, dx, enzyme_const, 5);
	return 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			_, err := tryBuildC(t, src, o)
			if err == nil || !strings.Contains(err.Error(), "cannot tell which bytes of") || !strings.Contains(err.Error(), "realloc") {
				t.Fatalf("-O%s: want an error naming the realloc, got %v", o, err)
			}
		})
	}
}
