package ad

import "testing"

// Structs that mix a pointer, a double and an int, copied by memcpy and by
// struct assignment: the double's adjoint flows back through the copy, the
// pointer's shadow is copied with it, the int carries nothing.
func TestMixedStructCopies(t *testing.T) {
	src := memoryPrelude + `
typedef struct { double *p; double w; int n; } Item;

__attribute__((noinline)) void copy_items(Item *dst, const Item *src, int k) { memcpy(dst, src, k * sizeof *src); }
__attribute__((noinline)) void assign(Item *dst, const Item *src) { *dst = *src; }

__attribute__((noinline)) double items(double *x, int n) {
	Item *a = malloc(4 * sizeof *a), *b = malloc(4 * sizeof *b);
	for (int i = 0; i < 4; i++) { a[i].p = x + i; a[i].w = x[i + 4] * x[i + 4]; a[i].n = i + 1; }
	copy_items(b, a, 4);
	Item c;
	assign(&c, &b[2]);
	assign(&b[1], &b[3]);
	a[0].w = 0; /* the copies are independent of the original */
	double s = 0;
	for (int i = 0; i < 4; i++) s += b[i].w * sin(*b[i].p) * b[i].n;
	s += c.w * *c.p * x[8];
	free(a);
	free(b);
	return s;
}

/* An array of such structs grown with realloc. */
__attribute__((noinline)) double grown(double *x, int n) {
	Item *v = NULL;
	for (int i = 0; i < n; i++) {
		v = realloc(v, (i + 1) * sizeof *v);
		v[i].p = x + (n - 1 - i);
		v[i].w = x[i] * x[i];
		v[i].n = i;
	}
	double s = 0;
	for (int i = 0; i < n; i++) s += v[i].w * cos(*v[i].p) + v[i].n;
	free(v);
	return s;
}

int main(void) {
	enum { N = 9 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.17 * i - 0.05 * i * i;
	GRADCHECK(items);
	GRADCHECK(grown);
	return failures != 0;
}
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// layoutPrefixCopies copy the first bytes of structs that mix pointers
// (and floats) with a tail: C++ copies an object's data members, not its
// padding (Eigen's CwiseBinaryOp is two pointers, an empty functor and
// padding: 24 bytes, of which a copy moves 16). The shadow copy of the
// forward sweep (pointer fields) and the adjoint copy of the reverse (float
// fields) cover the fields wholly inside the copied bytes; they trapped on
// a count that is not a whole number of elements, which the optimizer
// made an unconditional ud2 after the copy.
const layoutPrefixCopies = memoryPrelude + `
#include <stddef.h>
struct pair { double *a, *b; char tag; };
__attribute__((noinline)) void copy_pair(struct pair *d, const struct pair *s) {
	memcpy(d, s, offsetof(struct pair, tag));
}
__attribute__((noinline)) double pairdot(double *x, int n) {
	struct pair s = {x, x + n / 2, 1}, d;
	d.tag = 0;
	copy_pair(&d, &s);
	double r = 0;
	for (int i = 0; i < n / 2; i++) r += d.a[i] * d.b[i];
	return r;
}

struct weighted { double w; double *p; char tag; };
__attribute__((noinline)) void copy_weighted(struct weighted *d, const struct weighted *s) {
	memcpy(d, s, offsetof(struct weighted, tag));
}
__attribute__((noinline)) double weighted(double *x, int n) {
	struct weighted s = {x[0] * x[1], x + 2, 1}, d;
	d.tag = 0;
	copy_weighted(&d, &s);
	double r = 0;
	for (int i = 0; i < n - 2; i++) r += d.w * d.p[i] * d.p[i];
	return r;
}

int main(void) {
	enum { N = 6 };
	double x[N] = {1, 2, 3, 4, 5, 6};
	GRADCHECK(pairdot);
	GRADCHECK(weighted);
	return failures != 0;
}
`

// TestLayoutCopyPrefix: gradients through copies of a struct's first
// bytes against central differences at every level, and under valgrind.
func TestLayoutCopyPrefix(t *testing.T) {
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, layoutPrefixCopies, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, layoutPrefixCopies, "2")) })
}
