package adfuzz

import (
	"fmt"
	"strings"
)

// ---- recursion: bounded depth ----

func (g *gen) segRecursion() {
	t := g.out()
	id := g.id()
	switch g.r.IntN(3) {
	case 0:
		// acc = k*acc + c*sin(...) per level: bounded at any depth.
		k := round3(g.uniform(0.3, 0.8))
		acc := damped(point(0), k, 1)
		e := g.exprOf(2, []ex{{"a[k - 1]", g.xHull()}, {"acc", acc}})
		g.helper(fmt.Sprintf("static double rec%d(const double *a, int k, double acc)", id),
			"if (k <= 0)",
			"\treturn acc;",
			fmt.Sprintf("return rec%d(a, k - 1, %s * acc + %s * sin(%s));", id, lit(k), lit(round3(1-k)), e.s))
		depth := fmt.Sprint(1 + g.r.IntN(g.nx))
		if g.hasN && g.r.IntN(2) == 0 {
			depth = "n"
		}
		g.body.p("%s = rec%d(x, %s, 0.0);", t, id, depth)
		g.finish(t, acc)
	case 1:
		// Divide and conquer: every node combines its halves, bounded by
		// its leaves' bound plus 0.25 per level.
		leaf := g.exprOf(2, []ex{{"a[lo]", g.xHull()}})
		lb := leaf.iv.maxAbs() + 1
		g.helper(fmt.Sprintf("static double tree%d(const double *a, int lo, int hi)", id),
			"if (hi - lo == 1)",
			"\treturn "+leaf.s+";",
			"int mid = (lo + hi) / 2;",
			fmt.Sprintf("double l = tree%d(a, lo, mid), r = tree%d(a, mid, hi);", id, id),
			fmt.Sprintf("return 0.5 * (l + r) + %s * sin(l * r);", lit(round3(0.25/lb))))
		g.body.p("%s = tree%d(x, 0, NX);", t, id)
		g.finish(t, sym(lb+0.5))
	default:
		// Not a tail call: the product is formed on the way back.
		g.helper(fmt.Sprintf("static double prod%d(const double *a, int k)", id),
			"if (k == 0)",
			"\treturn 1.0;",
			fmt.Sprintf("return (1.0 + 0.3 * tanh(a[k - 1])) * prod%d(a, k - 1);", id))
		g.body.p("%s = prod%d(x, NX);", t, id)
		g.finish(t, sym(pow13(g.nx)))
	}
}

func pow13(n int) float64 {
	p := 1.0
	for i := 0; i < n; i++ {
		p *= 1.3
	}
	return p
}

// ---- fnptr: small constant tables of function pointers ----

func (g *gen) segFnPtr() {
	t := g.out()
	id := g.id()
	g.declare("unop", g.types, "typedef double (*fuzz_unop)(double);")
	n := 2 + g.r.IntN(3)
	var names []string
	b := 0.0
	for i := 0; i < n; i++ {
		e := g.exprOf(2, []ex{{"v", g.xHull()}})
		name := fmt.Sprintf("fp%d_%d", id, i)
		g.helper(fmt.Sprintf("static %sdouble %s(double v)", g.maybeNoinline(), name), "return "+e.s+";")
		names = append(names, name)
		b = max(b, e.iv.maxAbs())
	}
	g.helpers.p("static const fuzz_unop ftab%d[%d] = {%s};", id, n, strings.Join(names, ", "))
	g.helpers.p("")
	switch g.r.IntN(3) {
	case 0:
		i, j := g.r.IntN(n), g.r.IntN(n)
		g.body.p("%s = ftab%d[%d](x[%d]) * ftab%d[%d](x[%d]);", t, id, i, g.r.IntN(g.nx), id, j, g.r.IntN(g.nx))
		g.finish(t, sym(b*b))
	case 1:
		g.body.p("for (int i = 0; i < NX; i++)")
		g.body.p("\t%s += ftab%d[i %% %d](x[i]);", t, id, n)
		g.finish(t, sym(float64(g.nx)*b))
	default:
		g.helper(fmt.Sprintf("static %sdouble apply%d(fuzz_unop f, const double *a, int n)", noinline+" ", id),
			"double acc = 0.0;",
			"for (int i = 0; i < n; i++)",
			"\tacc += f(a[i]);",
			"return acc;")
		g.body.p("%s = apply%d(ftab%d[%d], x, NX);", t, id, id, g.r.IntN(n))
		g.finish(t, sym(float64(g.nx)*b))
	}
}

// ---- cxx: std::vector, a class with operators, lambdas ----

func (g *gen) segCXX() {
	switch g.r.IntN(3) {
	case 0:
		g.segVector()
	case 1:
		g.segClass()
	default:
		g.segLambda()
	}
}

func (g *gen) segVector() {
	t := g.out()
	ev := g.exprOf(2, []ex{{"e", g.xHull()}})
	cond := "i % 2 == 1"
	if g.r.IntN(2) == 0 {
		th, _ := g.threshold()
		cond = fmt.Sprintf("x[i] > %s", lit(th))
	}
	e2 := g.exprOf(1, []ex{{"v[i]", ev.iv}})
	el := hull(ev.iv.scale(0.5), e2.iv)
	e3 := g.exprOf(2, []ex{{"e", el}})
	g.body.open("")
	g.body.p("std::vector<T> v(x, x + NX);")
	g.body.p("for (auto &e : v)")
	g.body.p("\te = %s;", ev.s)
	g.body.p("std::vector<T> u;")
	g.body.open("for (std::size_t i = 0; i < v.size(); i++)")
	g.body.p("u.push_back(v[i] * 0.5);")
	g.body.p("if (%s)", cond)
	g.body.p("\tu.push_back(%s);", e2.s)
	g.body.close()
	g.body.p("for (T e : u)")
	g.body.p("\t%s += %s;", t, e3.s)
	g.body.close()
	g.finish(t, sumBound(2*g.nx, e3.iv))
}

func (g *gen) segClass() {
	g.declare("v2", g.types, `template <typename T> struct V2 {
	T a, b;
	V2(T a_, T b_) : a(a_), b(b_) {}
	V2 operator+(const V2 &o) const { return V2(a + o.a, b + o.b); }
	V2 operator*(T k) const { return V2(a * k, b * k); }
	T dot(const V2 &o) const { return a * o.a + b * o.b; }
	T norm2() const { return a * a + b * b; }
};`)
	t := g.out()
	var es []ex
	for i := 0; i < 5; i++ {
		es = append(es, g.expr(1, g.leaves()))
	}
	// r = p*k + q; t = r.dot(p) + sqrt(1 + q.norm2())
	pa, pb, qa, qb, k := es[0].iv, es[1].iv, es[2].iv, es[3].iv, es[4].iv
	ra, rb := pa.mul(k).add(qa), pb.mul(k).add(qb)
	b := ra.mul(pa).add(rb.mul(pb)).add(qa.square().add(qb.square()).add(point(1)).mono(sqrtF))
	g.body.open("")
	g.body.p("V2<T> p(%s, %s), q(%s, %s);", es[0].s, es[1].s, es[2].s, es[3].s)
	g.body.p("V2<T> w = p * (%s) + q;", es[4].s)
	g.body.p("%s = w.dot(p) + sqrt(1.0 + q.norm2());", t)
	g.body.close()
	g.finish(t, b)
}

func (g *gen) segLambda() {
	t := g.out()
	e := g.exprOf(2, append([]ex{{"v", g.xHull()}}, g.leaves()...))
	i := g.r.IntN(g.nx)
	g.body.open("")
	g.body.p("T acc = 0.0;")
	g.body.p("auto add = [&](T v) { acc += %s; };", e.s)
	g.body.p("for (int i = 0; i < NX; i++)")
	g.body.p("\tadd(x[i]);")
	g.body.p("auto at = [&](int i) { return x[i] * acc; };")
	g.body.p("%s = acc + 0.1 * at(%d);", t, i)
	g.body.close()
	ab := sumBound(g.nx, e.iv)
	g.finish(t, ab.add(ab.mul(g.xHull()).scale(0.1)))
}
