/* Memory the differentiated code allocates and links into the caller's
 * structure keeps its shadow, linked into the caller's shadow structure
 * (TestShadowOutlivesGradient in stdmap_test.go): pushes onto a list the
 * caller passes with a shadow list; the caller then reads and seeds the
 * shadows of the new nodes, and frees both lists (valgrind: no access to
 * freed memory, nothing leaked). A node allocated and freed inside keeps
 * its shadow no longer than the gradient. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
extern int enzyme_dup, enzyme_out;
double __enzyme_autodiff(void *, ...);
struct node { double v; struct node *next; };
/* Pushes x^2 and x^3; a scratch node holding x + 1 is freed again;
 * returns the sum of the list times the scratch value. */
double push(struct node **head, double x) {
	struct node *scratch = malloc(sizeof *scratch);
	scratch->v = x + 1;
	for (int k = 2; k <= 3; k++) {
		struct node *n = malloc(sizeof *n);
		n->v = pow(x, k);
		n->next = *head;
		*head = n;
	}
	double s = 0;
	for (struct node *n = *head; n; n = n->next) s += n->v;
	s *= scratch->v;
	free(scratch);
	return s;
}
static void release(struct node *n) {
	while (n) { struct node *next = n->next; free(n); n = next; }
}
int main(void) {
	int bad = 0;
	double x = 0.6;
	struct node *h = malloc(sizeof *h), *dh = malloc(sizeof *dh);
	h->v = 2.0; h->next = NULL;
	dh->v = 0; dh->next = NULL;
	double d = __enzyme_autodiff((void *)push, enzyme_dup, &h, &dh, enzyme_out, x);
	/* s = (2 + x^2 + x^3)(x + 1) */
	double want = (2 * x + 3 * x * x) * (x + 1) + (2 + x * x + x * x * x);
	if (fabs(d - want) > 1e-12) { printf("FAIL ds/dx: %g, want %g\n", d, want); bad++; }
	/* The caller's shadow list has the new nodes' shadows. */
	int n = 0;
	for (struct node *s = dh; s; s = s->next) n++;
	if (n != 3) { printf("FAIL shadow list of %d nodes, want 3\n", n); bad++; }
	/* The shadows of the pushed values (seeded by the gradient's reverse,
	 * then left at zero) and the caller's own node's adjoint: d s / d h->v. */
	if (fabs(dh->next->next->v - (x + 1)) > 1e-12) { printf("FAIL d/dh: %g, want %g\n", dh->next->next->v, x + 1); bad++; }
	for (struct node *s = dh; s; s = s->next) s->v += 1; /* the caller writes them */
	release(h);
	release(dh);
	printf("failures %d\n", bad);
	return bad != 0;
}
