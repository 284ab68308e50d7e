/* The program of TestNullPageShadow (constshadow_test.go), compiled after checkPrelude. */
#include <string.h>
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
struct node { double v[5]; struct node *next; };
double walk(struct node *head);
enum { N = 4 };
static void link(struct node *ns) {
	for (int i = 0; i < N; i++) ns[i].next = i + 1 < N ? &ns[i + 1] : NULL;
}
int main(void) {
	struct node ns[N], ds[N];
	memset(ds, 0, sizeof ds);
	for (int i = 0; i < N; i++)
		for (int k = 0; k < 5; k++) ns[i].v[k] = 0.3 + 0.1 * i - 0.07 * k;
	link(ns), link(ds);
	__enzyme_autodiff((void *)walk, enzyme_dup, ns, ds);
	for (int i = 0; i < N; i++) {
		char what[32];
		snprintf(what, sizeof what, "d v2[%d]", i);
		CHECK(what, ds[i].v[2], i > 0 ? ns[i - 1].v[4] : 1);
		snprintf(what, sizeof what, "d v4[%d]", i);
		CHECK(what, ds[i].v[4], i + 1 < N ? ns[i + 1].v[2] : 0);
	}
	struct node ts[N];
	memset(ts, 0, sizeof ts);
	link(ts);
	ts[1].v[2] = 1, ts[1].v[4] = 2; /* tangent: d/dv2[1] + 2 d/dv4[1] */
	CHECK("tangent", __enzyme_fwddiff((void *)walk, enzyme_dup, ns, ts), ns[0].v[4] + 2 * ns[2].v[2]);
	return failures != 0;
}
