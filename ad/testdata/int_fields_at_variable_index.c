// Integer fields of arrays of structs on the stack, written and read only
// at variable indices, next to doubles carrying derivatives: clipped
// points keep a tag (a union of four chars and an int) beside their
// coordinates; the points kept are appended at a running count, copied
// whole or field by field into a second array, and their tags copied
// into results whose chars are then swapped through a pointer (a 1-byte
// read at byte 24 of 32-byte elements holding doubles at 0, 8 and 16).
// The tags scale the loss, so a tag lost or taken for a float is a wrong
// value or gradient. Gradient against central finite differences.
#include <math.h>
#include <stdio.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

typedef struct { double x, y; } vec;
typedef union {
	struct { char in1, out1, in2, out2; } e;
	int value;
} tag;
typedef struct { vec v; tag id; } point;
typedef struct { vec at; double depth; tag id; } hit;

static inline double dot(vec a, vec b) { return a.x * b.x + a.y * b.y; }

// clip keeps the points of in behind the line n.p = off, and the crossing.
static int clip(point out[2], const point in[2], vec n, double off, char edge) {
	int k = 0;
	double d0 = dot(n, in[0].v) - off, d1 = dot(n, in[1].v) - off;
	if (d0 <= 0) out[k++] = in[0];
	if (d1 <= 0) out[k++] = in[1];
	if (d0 * d1 < 0) {
		double s = d0 / (d0 - d1);
		out[k].v.x = in[0].v.x + s * (in[1].v.x - in[0].v.x);
		out[k].v.y = in[0].v.y + s * (in[1].v.y - in[0].v.y);
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

static void swapTag(tag *t) {
	char a = t->e.in1, b = t->e.out1;
	t->e.in1 = t->e.in2;
	t->e.in2 = a;
	t->e.out1 = t->e.out2;
	t->e.out2 = b;
}

__attribute__((noinline)) int hits(hit *h, const double *x, int flip) {
	point p[2], q[2], r[2];
	for (int i = 0; i < 2; i++) {
		p[i].id.value = 0;
		q[i].id.value = 0;
		r[i].id.value = 0;
	}
	p[0].v.x = x[0];
	p[0].v.y = x[1];
	p[0].id.e.in2 = 3;
	p[0].id.e.out2 = 4;
	p[1].v.x = x[2];
	p[1].v.y = x[3];
	p[1].id.e.in2 = 4;
	p[1].id.e.out2 = 1;
	vec side = {1, 0.1}, back = {-1, -0.1}, front = {0.05, 1};
	if (clip(q, p, side, 0.2, 1) < 2)
		return 0;
	if (clip(r, q, back, 0.2, 2) < 2)
		return 0;
	int n = 0;
	for (int i = 0; i < 2; ++i) {
		double sep = dot(front, r[i].v) - 0.5;
		if (sep <= 0) {
			h[n].depth = sep;
			h[n].at.x = r[i].v.x - sep * front.x;
			h[n].at.y = r[i].v.y - sep * front.y;
			h[n].id = r[i].id;
			if (flip)
				swapTag(&h[n].id);
			++n;
		}
	}
	return n;
}

double loss(const double *x) {
	hit h[2];
	int n = hits(h, x, 1);
	double s = 0;
	for (int i = 0; i < n; i++)
		s += h[i].depth * h[i].depth + h[i].at.x * (1 + h[i].id.e.in1) + h[i].at.y * h[i].id.e.out2 +
		     0.01 * h[i].id.e.in2 * h[i].at.x * h[i].at.y;
	return s;
}

int main(void) {
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
