/* The program of TestMixedStructCopies (layout_test.go), compiled after memoryPrelude. */
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
