/* layoutPrefixCopies copy the first bytes of structs that mix pointers
 * (and floats) with a tail: C++ copies an object's data members, not its
 * padding (Eigen's CwiseBinaryOp is two pointers, an empty functor and
 * padding: 24 bytes, of which a copy moves 16). The shadow copy of the
 * forward sweep (pointer fields) and the adjoint copy of the reverse (float
 * fields) cover the fields wholly inside the copied bytes; they trapped on
 * a count that is not a whole number of elements, which the optimizer
 * made an unconditional ud2 after the copy.
 * (layoutPrefixCopies in layout_test.go; compiled after memoryPrelude) */
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
