/* The program of TestFloatExponentWrites (intstore_test.go): integers
   written over the sign and exponent of a double that keep its other bits
   (Cephes' ldexp through a union of shorts, a sign cleared through its top
   byte). The double they leave is the old one scaled or signed anew, whose
   derivative is not zero: with -DACTIVE the link stops. Without, the same
   writes make a constant (no derivative reaches it) that scales the
   result: the gradient against a central difference. */
#include <math.h>
#include <stdio.h>
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double scale2(double x, int pw2) {
	union {
		double y;
		unsigned short sh[4];
	} u;
	u.y = x;
	short *q = (short *)&u.sh[3];
	int e = (*q & 0x7ff0) >> 4;
	e += pw2;
	*q &= 0x800f;
	*q |= (e & 0x7ff) << 4;
	return u.y;
}

__attribute__((noinline)) double absolute(double x) {
	union {
		double y;
		unsigned char b[8];
	} u;
	u.y = x;
	u.b[7] &= 0x7f;
	return u.y;
}

double f(double x) {
#ifdef ACTIVE
	return scale2(x * x, 3) + absolute(-x);
#else
	return x * scale2(1.5, 3) + sin(x) * absolute(-2.5);
#endif
}

int main(void) {
	double x = 1.3, h = 1e-6;
	double fd = (f(x + h) - f(x - h)) / (2 * h);
	double g = __enzyme_autodiff((void *)f, x);
	printf("gradient %.9g, central difference %.9g\n", g, fd);
	return !(fabs(g - fd) < 1e-6);
}
