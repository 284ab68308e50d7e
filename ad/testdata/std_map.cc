/* std::map values differentiated (TestStdMap in stdmap_test.go): the
 * caller's map and its shadow map built alike (passed enzyme_dup), maps
 * the differentiated code builds, rebalances, copies and destroys, and a
 * multiset sorting active keys; gradients (reverse and split mode) and
 * tangents (forward mode) against central differences. KEY is the key
 * type, K(i) the i-th key and GET(m, k) m's value at k (m[k], or
 * m.find(k)->second where operator[]'s insertion path cannot be
 * differentiated); LOCAL adds the map built in the function, COPIES a map
 * copied and mutated inside it (whose shadow's colors the copy does not
 * set). */
#include <map>
#include <set>
#include <string>
#include <cstdio>
#include <cmath>
extern int enzyme_dup, enzyme_const;
template <typename... T> double __enzyme_autodiff(void *, T...);
template <typename... T> double __enzyme_fwddiff(void *, T...);
template <typename... T> void *__enzyme_augmentfwd(void *, T...);
template <typename... T> void __enzyme_reverse(void *, T...);
using dict = std::map<KEY, double>;
static const int N = 24;

/* The caller's keys only: values read and written by key, find,
 * lower_bound, iteration both ways (the predecessor of end() and of the
 * root). */
double existing(dict &m) {
	for (int i = 0; i < N; i += 2) GET(m, K(i)) = GET(m, K(i)) * GET(m, K(i + 1));
	double s = 0;
	auto it = m.find(K(5));
	if (it != m.end()) s += it->second * it->second;
	auto lb = m.lower_bound(K(7));
	for (int i = 0; i < 4 && lb != m.end(); i++, ++lb) s += 0.5 * lb->second;
	for (auto &kv : m) s += std::sin(kv.second);
	for (auto r = m.rbegin(); r != m.rend(); ++r) s = 0.9 * s + r->second * r->second;
	auto last = m.end();
	--last;
	return s + 2 * last->second;
}

#if LOCAL
/* A map built, rebalanced and destroyed in the function: inserts in a
 * scrambled order, erases of every kind (leaves, nodes with one and two
 * children, the root), erases while iterating. */
double local(dict &m) {
	dict loc;
	for (int i = 0; i < N; i++) loc[K((i * 7) % N)] = GET(m, K(i)) * (1 + 0.1 * i);
	for (int i = 0; i < N; i++) loc[K(N + (i * 5) % N)] = loc[K(i)] * loc[K((i + 3) % N)] + 0.01 * i;
	for (int i = 0; i < 2 * N; i += 3) loc.erase(K(i));
	for (auto it = loc.begin(); it != loc.end();) {
		if (it->second > 0.25) it = loc.erase(it);
		else ++it;
	}
	double s = 0;
	for (auto r = loc.rbegin(); r != loc.rend(); ++r) s = 0.8 * s + std::cos(r->second) + r->second;
#if COPIES
	dict c = loc;
	for (int i = 0; i < N; i++) c[K(3 * N + i)] = c.begin()->second * (0.5 + 0.1 * i) + c.rbegin()->second;
	for (int i = 0; i < N; i += 2) c.erase(c.begin());
	dict d = std::move(c);
	for (auto &kv : d) s += kv.second * kv.second;
#endif
	return s;
}
#endif

/* Active keys: sorted by a multiset (equal keys too), weighted by rank. */
double sorted(dict &m) {
	std::multiset<double> order;
	for (auto &kv : m) order.insert(kv.second * kv.second - 0.3);
	order.insert(GET(m, K(3)) * GET(m, K(3)) - 0.3); /* a key equal to another */
	double s = 0, w = 1;
	for (double v : order) s += (w += 0.25) * v;
	return s;
}

static void fill(dict &m, double scale) {
	for (int i = 0; i < N; i++) {
		int k = (i * 17) % N;
		m[K(k)] = scale * (0.15 + 0.31 * (k % 5) - 0.04 * k);
	}
}

static int bad = 0;

static void check(const char *what, int i, double got, double want) {
	if (!(std::fabs(got - want) <= 1e-6 * (1 + std::fabs(want)))) {
		std::printf("FAIL %s [%d]: %.12g, want %.12g\n", what, i, got, want);
		bad++;
	}
}

/* d f / d m[K(i)] by central differences. */
template <double (*f)(dict &)> double difference(int i) {
	dict a, b;
	fill(a, 1);
	fill(b, 1);
	const double h = 1e-6;
	a[K(i)] += h;
	b[K(i)] -= h;
	return (f(a) - f(b)) / (2 * h);
}

template <double (*f)(dict &)> void gradient(const char *what) {
	dict m, dm;
	fill(m, 1);
	fill(dm, 0);
	__enzyme_autodiff((void *)f, enzyme_dup, &m, &dm);
	for (int i = 0; i < N; i++) check(what, i, dm[K(i)], difference<f>(i));
}

/* Forward mode: the tangent along direction t (t_i = 1 + i/N). */
template <double (*f)(dict &)> void tangent(const char *what) {
	dict m, dm;
	fill(m, 1);
	fill(dm, 0);
	double want = 0;
	for (int i = 0; i < N; i++) {
		dm[K(i)] = 1 + double(i) / N;
		want += dm[K(i)] * difference<f>(i);
	}
	double got = __enzyme_fwddiff((void *)f, enzyme_dup, &m, &dm);
	check(what, -1, got, want);
}

/* Split mode: the augmented forward and the reverse called apart. */
template <double (*f)(dict &)> void split(const char *what) {
	dict m, dm;
	fill(m, 1);
	fill(dm, 0);
	void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, &m, &dm);
	__enzyme_reverse((void *)f, enzyme_dup, &m, &dm, 1.0, tape);
	for (int i = 0; i < N; i++) check(what, i, dm[K(i)], difference<f>(i));
}

int main() {
	KEYS_INIT;
	gradient<existing>("existing");
	gradient<sorted>("sorted");
	tangent<existing>("existing, forward");
	tangent<sorted>("sorted, forward");
#if LOCAL
	gradient<local>("local");
	tangent<local>("local, forward");
#endif
	split<existing>("existing, split");
	std::printf("failures %d\n", bad);
	return bad != 0;
}
