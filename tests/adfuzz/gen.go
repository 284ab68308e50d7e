package adfuzz

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// Options steer what Generate puts into a program; the zero value lets the
// seed choose everything.
type Options struct {
	Knobs KnobSet // knobs every program gets (besides those the seed picks)
	Only  bool    // use exactly Knobs (plus libm), nothing the seed picks
	Modes ModeSet // when not empty, the modes every program uses (and no other)
	NoCXX bool    // never generate C++
}

// Program is one generated test program.
type Program struct {
	Seed   uint64
	CXX    bool
	Knobs  KnobSet
	Modes  ModeSet
	Source string
}

// FileName is the name the program's source is written under.
func (p Program) FileName() string {
	if p.CXX {
		return "prog.cc"
	}
	return "prog.c"
}

// Exit statuses of a generated program.
const (
	ExitPass          = 0
	ExitWrongDeriv    = 2 // a derivative differs from its central difference
	ExitPrimalChanged = 3 // the primal memory after an AD call differs from the primal's
	ExitFDUnstable    = 4 // (primal only) central differences with two steps disagree
)

// PrimalOnlyMacro, when defined, leaves the AD calls out of a program: what
// remains runs with any C compiler (the sanitizer check and the reference
// primal values).
const PrimalOnlyMacro = "FUZZ_PRIMAL_ONLY"

// gen holds the state of one program being generated.
type gen struct {
	r     *rand.Rand
	knobs KnobSet
	modes ModeSet
	cxx   bool
	ft    string // type of F's scalars: "double", or "T" in C++

	nx     int       // length of the active array x
	xv     []float64 // x's values at the evaluation point
	hasS   bool      // F takes an active scalar s
	sv     float64
	hasCP  bool // F takes a constant struct of pointers to constant arrays
	w, c   []float64
	cpN    int // cp->n, at most nx
	cpM    int // cp->m, at most len(c)
	hasN   bool
	nArg   int       // value of F's int parameter n, at most nx
	seeds  []float64 // reverse-mode seeds of x's final values (all zero: none)
	width  int       // batch width
	xFinal bool      // the last segment overwrites x in place

	types, helpers, body *block
	declared             map[string]bool
	nextID               int
	outs                 []ex // results of the segments so far
}

// Generate returns the program of seed.
func Generate(seed uint64, opt Options) Program {
	g := &gen{
		r:        rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)),
		types:    &block{},
		helpers:  &block{},
		body:     &block{ind: 1},
		declared: map[string]bool{},
	}
	g.chooseFeatures(seed, opt)
	g.chooseInputs()
	segs := g.plan()
	g.body.p("%s r = 0.0;", g.ft)
	for _, seg := range segs {
		seg()
	}
	g.body.p("return r;")
	return Program{Seed: seed, CXX: g.cxx, Knobs: g.knobs, Modes: g.modes, Source: g.assemble(seed)}
}

// chooseFeatures picks knobs and modes. It draws the same random numbers
// whatever opt says, so that forcing knobs or modes leaves the rest of the
// seed's program as it was. Knobs after KnobCXX are drawn from a stream of
// their own, so that adding one leaves the programs of earlier seeds that
// do not pick it as they were.
func (g *gen) chooseFeatures(seed uint64, opt Options) {
	var picked KnobSet
	late := rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc909))
	for _, k := range AllKnobs() {
		p, r := 0.3, g.r
		if k == KnobCXX {
			p = 0.2
		}
		if k > KnobCXX {
			r = late
		}
		if r.Float64() < p {
			picked = picked.With(k)
		}
	}
	g.knobs = KnobSet(0).With(KnobLibm) | opt.Knobs
	if !opt.Only {
		g.knobs |= picked
	}
	if opt.NoCXX {
		g.knobs &^= KnobSet(0).With(KnobCXX)
	}
	g.cxx = g.knobs.Has(KnobCXX)
	g.ft = "double"
	if g.cxx {
		g.ft = "T"
	}
	all := AllModes()
	modes := ModeSet(0).With(all[g.r.IntN(len(all))])
	if second := all[g.r.IntN(len(all))]; g.r.IntN(10) < 3 {
		modes = modes.With(second)
	}
	g.modes = opt.Modes
	if g.modes == 0 {
		g.modes = modes
	}
	g.width = 2 + g.r.IntN(3)
}

func (g *gen) chooseInputs() {
	g.nx = 3 + g.r.IntN(5)
	// Values at least 0.1 apart and from 0, so that a threshold between two
	// of them is 0.05 away from every value: a comparison of x with it takes
	// the same branch at every point the finite differences probe.
	for len(g.xv) < g.nx {
		v := round3(g.uniform(-1.4, 1.6))
		ok := math.Abs(v) >= 0.1
		for _, u := range g.xv {
			ok = ok && math.Abs(u-v) >= 0.1
		}
		if ok {
			g.xv = append(g.xv, v)
		}
	}
	g.hasS = g.r.IntN(10) < 7
	g.sv = round3(g.uniform(0.3, 1.3))
	g.hasCP = g.knobs.Has(KnobConstStruct) || g.r.IntN(10) < 3
	if g.hasCP {
		g.declare("cparams", g.types, "struct cparams {\n\tconst double *w;\n\tconst double *c;\n\tint n;\n\tint m;\n};")
	}
	for i := 0; i < g.nx; i++ {
		g.w = append(g.w, g.nonzero())
	}
	for i := 2 + g.r.IntN(4); i > 0; i-- {
		g.c = append(g.c, g.nonzero())
	}
	g.cpN = 1 + g.r.IntN(g.nx)
	g.cpM = 1 + g.r.IntN(len(g.c))
	g.hasN = g.r.IntN(2) == 0
	g.nArg = 1 + g.r.IntN(g.nx)
	g.seeds = make([]float64, g.nx)
	if g.r.IntN(2) == 0 {
		for i := range g.seeds {
			g.seeds[i] = round3(g.uniform(-1, 1))
		}
	}
}

func (g *gen) uniform(lo, hi float64) float64 { return lo + (hi-lo)*g.r.Float64() }

func (g *gen) nonzero() float64 {
	v := round3(g.uniform(-1, 1))
	if math.Abs(v) < 0.05 {
		v = 0.25
	}
	return v
}

// plan lists the segments of F's body: one or two per knob, in random
// order, with an in-place update of x itself (if any) last, since later
// segments compare x's values with thresholds.
func (g *gen) plan() []func() {
	var segs []func()
	add := func(k Knob, f func(), times int) {
		for i := 0; i < times; i++ {
			segs = append(segs, func() {
				g.body.p("/* %s */", k)
				f()
			})
		}
	}
	add(KnobLibm, g.segLibm, 1+g.r.IntN(2))
	table := []struct {
		k Knob
		f func()
	}{
		{KnobStruct, g.segStruct}, {KnobConstStruct, g.segConstStruct}, {KnobDataCount, g.segDataCount},
		{KnobNested, g.segNested}, {KnobIntCopy, g.segIntCopy}, {KnobMemcpy, g.segMemcpy},
		{KnobLocalConst, g.segLocalConst}, {KnobRealloc, g.segRealloc}, {KnobRecursion, g.segRecursion},
		{KnobFnPtr, g.segFnPtr}, {KnobCXX, g.segCXX}, {KnobPtrSwap, g.segPtrSwap},
	}
	for _, e := range table {
		if g.knobs.Has(e.k) {
			add(e.k, e.f, 1+g.r.IntN(3)/2)
		}
	}
	inPlaceX := false
	if g.knobs.Has(KnobInPlace) {
		n := 1 + g.r.IntN(3)/2
		inPlaceX = g.r.IntN(2) == 0
		if inPlaceX {
			n--
		}
		add(KnobInPlace, func() { g.segInPlace(false) }, n)
	}
	ptrX := g.knobs.Has(KnobPtrSwap) && g.r.IntN(3) == 0
	g.r.Shuffle(len(segs), func(i, j int) { segs[i], segs[j] = segs[j], segs[i] })
	if inPlaceX {
		segs = append(segs, func() {
			g.body.p("/* %s (of x itself) */", KnobInPlace)
			g.segInPlace(true)
		})
	}
	if ptrX {
		// x's elements stay within the bound the in-place update keeps.
		segs = append(segs, func() {
			g.body.p("/* %s (of x itself) */", KnobPtrSwap)
			g.ptrStepX()
		})
	}
	return segs
}

// id is a fresh number for names.
func (g *gen) id() int {
	g.nextID++
	return g.nextID
}

// xElem is x[i] at a constant index.
func (g *gen) xElem(i int) ex {
	return ex{fmt.Sprintf("x[%d]", i), point(g.xv[i]).widen(0.01)}
}

// xHull bounds every element of x.
func (g *gen) xHull() iv {
	return iv{minOf(g.xv), maxOf(g.xv)}.widen(0.01)
}

// sLeaf is the active scalar s.
func (g *gen) sLeaf() ex { return ex{"s", point(g.sv).widen(0.01)} }

// leaves are the values of F a new expression may read: a few elements of
// x, s, and results of earlier segments.
func (g *gen) leaves() []ex {
	var ls []ex
	for _, i := range g.r.Perm(g.nx)[:1+g.r.IntN(min(3, g.nx))] {
		ls = append(ls, g.xElem(i))
	}
	if g.hasS {
		ls = append(ls, g.sLeaf())
	}
	if len(g.outs) > 0 {
		for _, i := range g.r.Perm(len(g.outs))[:min(2, len(g.outs))] {
			ls = append(ls, g.outs[i])
		}
	}
	return ls
}

// threshold is a constant between two of x's values (0.05 from each), and
// how many values lie above it.
func (g *gen) threshold() (float64, int) {
	sorted := append([]float64(nil), g.xv...)
	sort.Float64s(sorted)
	i := g.r.IntN(len(sorted) - 1)
	t := round3((sorted[i] + sorted[i+1]) / 2)
	return t, len(sorted) - 1 - i
}

// out declares a segment's result variable tK and returns its name.
func (g *gen) out() string {
	name := fmt.Sprintf("t%d", g.id())
	g.body.p("%s %s = 0.0;", g.ft, name)
	return name
}

// finish adds result name (bounded by b) to r, scaled to a moderate size,
// and makes it a leaf of later segments.
func (g *gen) finish(name string, b iv) {
	k := round3(g.uniform(0.3, 1.2))
	if m := b.maxAbs(); m > 5 {
		k = round3(k * 5 / m)
		if k < 1e-3 {
			k = 1e-3
		}
	}
	g.body.p("r += %s * %s;", lit(k), name)
	if b.maxAbs() <= maxMag {
		g.outs = append(g.outs, ex{name, b})
	}
}

// declare writes a type or helper definition once.
func (g *gen) declare(key string, w *block, text string) {
	if g.declared[key] {
		return
	}
	g.declared[key] = true
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		w.p("%s", l)
	}
}

// noinline is the attribute that keeps a helper a call.
const noinline = "__attribute__((noinline))"

// maybeNoinline is noinline or nothing, at random.
func (g *gen) maybeNoinline() string {
	if g.r.IntN(4) == 0 {
		return ""
	}
	return noinline + " "
}
