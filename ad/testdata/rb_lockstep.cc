/* The lockstep red-black tree routines (rbtreegen.go) against libstdc++'s
 * own, on random insertions and erases (TestRbTreeLockstep in
 * rbtree_test.go): a tree the library rebalances, a primal tree the
 * lockstep routines rebalance and their shadow tree. After every step the
 * primal tree must be the library's, node for node and color for color,
 * and each non-null link of the shadow tree the shadow of the primal's;
 * the walks must reach the shadow of the library's node. SCRAMBLE fills
 * the shadow's colors, and the shadow links where the primal's are null,
 * with junk first (a copied tree's shadow: the lockstep routines read
 * neither). */
#include <bits/stl_tree.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
using B = std::_Rb_tree_node_base;
extern "C" void rb_insert(bool left, B *x, B *p, B *h, B *sx, B *sp, B *sh);
extern "C" B *rb_erase(B *z, B *h, B *sz, B *sh);
extern "C" B *rb_increment(B *x, B *sx, B *want);
extern "C" B *rb_decrement(B *x, B *sx, B *want);

static const int N = 300;
static B lib[N + 1], prim[N + 1], shad[N + 1]; /* [N]: the headers */
static int keys[N];
static bool live[N];
static int bad;

static void reset(B *h) {
	h->_M_color = std::_S_red;
	h->_M_parent = 0;
	h->_M_left = h->_M_right = h;
}
/* The index of node n of tree t (N: the header, -1: null). */
static int index(B *t, B *n) { return n ? int(n - t) : -1; }
static B *at(B *t, int i) { return i < 0 ? 0 : t + i; }

static void fail(const char *what, int step, int i) {
	if (bad++ < 10) std::printf("FAIL step %d: %s at node %d\n", step, what, i);
}

static void compare(int step, bool colors) {
	for (int i = 0; i <= N; i++) {
		if (i < N && !live[i]) continue;
		B *l = &lib[i], *p = &prim[i], *s = &shad[i];
		B *ll[3] = {l->_M_parent, l->_M_left, l->_M_right};
		B *pl[3] = {p->_M_parent, p->_M_left, p->_M_right};
		B *sl[3] = {s->_M_parent, s->_M_left, s->_M_right};
		for (int k = 0; k < 3; k++) {
			if (index(lib, ll[k]) != index(prim, pl[k])) fail("primal link", step, i);
			if (pl[k] && index(shad, sl[k]) != index(prim, pl[k])) fail("shadow link", step, i);
			if (colors && !pl[k] && sl[k]) fail("shadow link where the primal's is null", step, i);
		}
		if (l->_M_color != p->_M_color) fail("primal color", step, i);
		if (colors && s->_M_color != p->_M_color) fail("shadow color", step, i);
	}
	/* The walks, from every node (and the header, backwards). */
	for (int i = 0; i <= N; i++) {
		if (i < N && !live[i]) continue;
		if (lib[N]._M_parent == 0) break;
		if (i < N) {
			B *want = std::_Rb_tree_increment(&prim[i]);
			if (index(lib, std::_Rb_tree_increment(&lib[i])) != index(prim, want)) fail("increment", step, i);
			if (rb_increment(&prim[i], &shad[i], want) != at(shad, index(prim, want))) fail("shadow increment", step, i);
		}
		if (i == N || &prim[i] != prim[N]._M_left) {
			B *want = std::_Rb_tree_decrement(&prim[i]);
			if (index(lib, std::_Rb_tree_decrement(&lib[i])) != index(prim, want)) fail("decrement", step, i);
			if (rb_decrement(&prim[i], &shad[i], want) != at(shad, index(prim, want))) fail("shadow decrement", step, i);
		}
	}
}

/* The parent of a new node with key k in tree t and its side. */
static B *position(B *t, int k, bool *left) {
	B *h = &t[N], *y = h, *x = h->_M_parent;
	*left = true;
	while (x) {
		y = x;
		*left = k < keys[index(t, x)];
		x = *left ? x->_M_left : x->_M_right;
	}
	return y;
}

static void scramble(unsigned *seed) {
	for (int i = 0; i < N; i++) {
		shad[i]._M_color = std::_Rb_tree_color(rand_r(seed) % 2);
		B *junk = (B *)(uintptr_t)(0x1000 + 16 * (rand_r(seed) % 64));
		if (!prim[i]._M_left) shad[i]._M_left = junk;
		if (!prim[i]._M_right) shad[i]._M_right = junk;
	}
}

int main(int argc, char **argv) {
	bool junk = SCRAMBLE;
	for (unsigned seed = 1; seed <= 6; seed++) {
		reset(&lib[N]);
		reset(&prim[N]);
		reset(&shad[N]);
		for (int i = 0; i < N; i++) live[i] = false;
		unsigned r = seed;
		int step = 0;
		for (int round = 0; round < 3; round++) {
			/* Inserts (ascending, descending or random keys, by seed),
			 * then erases of most of them in random order. */
			for (int i = 0; i < N; i++) {
				if (live[i]) continue;
				keys[i] = seed % 3 == 0 ? i : seed % 3 == 1 ? N - i : rand_r(&r) % 1000;
				bool left, pleft;
				B *lp = position(lib, keys[i], &left);
				B *pp = position(prim, keys[i], &pleft);
				std::_Rb_tree_insert_and_rebalance(left, &lib[i], lp, lib[N]);
				if (junk && rand_r(&r) % 8 == 0) scramble(&r);
				rb_insert(pleft, &prim[i], pp, &prim[N], &shad[i], at(shad, index(prim, pp)), &shad[N]);
				live[i] = true;
				compare(++step, !junk);
			}
			for (int n = 0; n < N * 4 / 5; n++) {
				int i = rand_r(&r) % N;
				if (!live[i]) continue;
				if (std::_Rb_tree_rebalance_for_erase(&lib[i], lib[N]) != &lib[i]) fail("library erase result", step, i);
				if (junk && rand_r(&r) % 8 == 0) scramble(&r);
				if (rb_erase(&prim[i], &prim[N], &shad[i], &shad[N]) != &prim[i]) fail("erase result", step, i);
				live[i] = false;
				compare(++step, !junk);
			}
		}
	}
	std::printf("failures %d\n", bad);
	return bad != 0;
}
