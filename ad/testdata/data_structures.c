/* The program of TestDataStructures (structures_test.go), compiled after memoryPrelude. */
/* An array of structs with mixed double/int fields: pairwise forces. */
typedef struct { double x, y; int kind; double mass; } Particle;
__attribute__((noinline)) double energy(Particle *p, int n) {
	double e = 0;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			double dx = p[i].x - p[j].x, dy = p[i].y - p[j].y;
			double r2 = dx * dx + dy * dy + 0.01;
			e += p[i].mass * p[j].mass * (p[i].kind == p[j].kind ? 1.0 : -0.5) / sqrt(r2);
		}
	return e;
}
static double energy_flat(double *x, int n) {
	Particle p[8];
	for (int i = 0; i < n / 2; i++) { p[i].x = x[2 * i]; p[i].y = x[2 * i + 1]; p[i].kind = i % 2; p[i].mass = 1 + 0.1 * i; }
	return energy(p, n / 2);
}

/* A linked list built on the heap, then walked. */
typedef struct Node { double v; struct Node *next; } Node;
__attribute__((noinline)) double list_sum(double *x, int n) {
	Node *head = 0;
	for (int i = 0; i < n; i++) {
		Node *nd = malloc(sizeof *nd);
		nd->v = x[i] * x[i];
		nd->next = head;
		head = nd;
	}
	double s = 0, w = 1;
	for (Node *p = head; p; p = p->next) { s += w * sin(p->v); w *= 1.1; }
	while (head) { Node *nx = head->next; free(head); head = nx; }
	return s;
}

/* A recursive walk of a tree of heap nodes. */
typedef struct Tree { double v; struct Tree *l, *r; } Tree;
static Tree *build(double *x, int lo, int hi) {
	if (lo >= hi) return 0;
	int mid = (lo + hi) / 2;
	Tree *t = malloc(sizeof *t);
	t->v = x[mid];
	t->l = build(x, lo, mid);
	t->r = build(x, mid + 1, hi);
	return t;
}
__attribute__((noinline)) double walk(Tree *t, double depth) {
	if (!t) return 0;
	return cos(t->v * depth) + walk(t->l, depth + 1) * t->v + walk(t->r, depth + 1);
}
static void release(Tree *t) { if (t) { release(t->l); release(t->r); free(t); } }
/* The tree is built outside the differentiated code and walked inside:
   its shadow tree is built the same way, with the shadow values as leaves. */
static Tree *build_shadow(double *dx, Tree *t, int lo, int hi) {
	if (lo >= hi) return 0;
	int mid = (lo + hi) / 2;
	Tree *s = calloc(1, sizeof *s);
	s->l = build_shadow(dx, t->l, lo, mid);
	s->r = build_shadow(dx, t->r, mid + 1, hi);
	return s;
}
static void collect(Tree *s, double *dx, int lo, int hi) {
	if (lo >= hi) return;
	int mid = (lo + hi) / 2;
	dx[mid] += s->v;
	collect(s->l, dx, lo, mid);
	collect(s->r, dx, mid + 1, hi);
}
static double walk_flat(double *x, int n) { Tree *t = build(x, 0, n); double r = walk(t, 1.0); release(t); return r; }

/* Pointers to pointers: a ragged array. */
__attribute__((noinline)) double ragged(double **rows, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j <= i; j++) s += rows[i][j] * rows[i][j] * (j + 1);
	return s;
}
static double ragged_flat(double *x, int n) {
	double *rows[4] = {x, x + 1, x + 3, x + 6};
	(void)n;
	return ragged(rows, 4);
}

int main(void) {
	enum { N = 10 };
	double x[N];
	for (int i = 0; i < N; i++) x[i] = 0.3 + 0.37 * i - 0.04 * i * i;
	GRADCHECK_ALL
	{ /* tree: shadow built by the caller, walked by the gradient */
		Tree *t = build(x, 0, N), *s;
		double dx[N] = {0};
		s = build_shadow(dx, t, 0, N);
		__enzyme_autodiff((void *)walk, enzyme_dup, t, s, enzyme_const, 1.0);
		collect(s, dx, 0, N);
		fdcheck("walk", walk_flat, x, N, dx);
		release(t);
		release(s);
	}
	{ /* ragged: shadow rows point into the shadow array */
		double dx[N] = {0};
		double *rows[4] = {x, x + 1, x + 3, x + 6}, *drows[4] = {dx, dx + 1, dx + 3, dx + 6};
		__enzyme_autodiff((void *)ragged, enzyme_dup, rows, drows, enzyme_const, 4);
		fdcheck("ragged", ragged_flat, x, N, dx);
	}
	return failures != 0;
}
