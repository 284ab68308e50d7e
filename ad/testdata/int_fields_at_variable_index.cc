// The C++ shape of int_fields_at_variable_index.c: points whose
// constructor zeroes their tag, vector operators, a template swap through
// references. Integer tags beside doubles in arrays of structs on the
// stack, written and read only at variable indices; a tag lost or taken
// for a float is a wrong value or gradient. Gradient against central
// finite differences.
#include <math.h>
#include <stdio.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

struct Vec {
	double x, y;
};
static inline Vec operator+(Vec a, Vec b) { return {a.x + b.x, a.y + b.y}; }
static inline Vec operator-(Vec a, Vec b) { return {a.x - b.x, a.y - b.y}; }
static inline Vec operator*(double s, Vec a) { return {s * a.x, s * a.y}; }
static inline double dot(Vec a, Vec b) { return a.x * b.x + a.y * b.y; }

union Tag {
	struct {
		char in1, out1, in2, out2;
	} e;
	int value;
};
struct Point {
	Point() { id.value = 0; }
	Vec v;
	Tag id;
};
struct Hit {
	Vec at;
	double depth;
	Tag id;
};

template <typename T> static inline void exchange(T &a, T &b) {
	T t = a;
	a = b;
	b = t;
}
static void flip(Tag &t) {
	exchange(t.e.in1, t.e.in2);
	exchange(t.e.out1, t.e.out2);
}

static int clip(Point out[2], const Point in[2], Vec n, double off, char edge) {
	int k = 0;
	double d0 = dot(n, in[0].v) - off, d1 = dot(n, in[1].v) - off;
	if (d0 <= 0)
		out[k++] = in[0];
	if (d1 <= 0)
		out[k++] = in[1];
	if (d0 * d1 < 0) {
		out[k].v = in[0].v + d0 / (d0 - d1) * (in[1].v - in[0].v);
		if (d0 > 0) {
			out[k].id = in[0].id;
			out[k].id.e.in1 = edge;
			out[k].id.e.in2 = 0;
		} else {
			out[k].id = in[1].id;
			out[k].id.e.out1 = edge;
			out[k].id.e.out2 = 0;
		}
		++k;
	}
	return k;
}

__attribute__((noinline)) int hits(Hit *h, const double *x, int swap) {
	Point p[2];
	p[0].v = {x[0], x[1]};
	p[0].id.e.in2 = 3;
	p[0].id.e.out2 = 4;
	p[1].v = {x[2], x[3]};
	p[1].id.e.in2 = 4;
	p[1].id.e.out2 = 1;
	Point q[2], r[2];
	Vec side = {1, 0.1}, front = {0.05, 1};
	if (clip(q, p, side, 0.2, 1) < 2)
		return 0;
	if (clip(r, q, -1.0 * side, 0.2, 2) < 2)
		return 0;
	int n = 0;
	for (int i = 0; i < 2; ++i) {
		double sep = dot(front, r[i].v) - 0.5;
		if (sep <= 0) {
			h[n].depth = sep;
			h[n].at = r[i].v - sep * front;
			h[n].id = r[i].id;
			if (swap)
				flip(h[n].id);
			++n;
		}
	}
	return n;
}

double loss(const double *x) {
	Hit h[2];
	int n = hits(h, x, 1);
	double s = 0;
	for (int i = 0; i < n; i++)
		s += h[i].depth * h[i].depth + h[i].at.x * (1 + h[i].id.e.in1) + h[i].at.y * h[i].id.e.out2 +
		     0.01 * h[i].id.e.in2 * h[i].at.x * h[i].at.y;
	return s;
}

int main() {
	double x[4] = {-0.3, 0.2, 0.4, -0.1}, g[4] = {0};
	__enzyme_autodiff((void *)loss, enzyme_dup, x, g);
	int bad = 0;
	for (int i = 0; i < 4; i++) {
		double h = 1e-6, xp[4], xm[4];
		for (int j = 0; j < 4; j++)
			xp[j] = xm[j] = x[j];
		xp[i] += h;
		xm[i] -= h;
		double fd = (loss(xp) - loss(xm)) / (2 * h);
		if (fabs(fd - g[i]) > 1e-6 * (1 + fabs(fd))) {
			printf("FAIL g[%d]=%g fd=%g\n", i, g[i], fd);
			bad = 1;
		}
	}
	printf("loss %g, %s\n", loss(x), bad ? "FAIL" : "tags done");
	return bad;
}
