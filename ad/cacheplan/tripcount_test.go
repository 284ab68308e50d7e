package cacheplan

import (
	"fmt"
	"testing"

	"github.com/gozyme/gozyme/irutil"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// loopFunc parses one function of a loop headed by block "loop" and
// returns its Primal and that loop.
func loopFunc(t *testing.T, src string) (Primal, *irutil.Loop) {
	t.Helper()
	m, err := irutil.ParseText("loop.ll", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	cfg, err := irutil.NewCFG(f)
	if err != nil {
		t.Fatal(err)
	}
	p := Primal{F: f, CFG: cfg, BlockOf: map[value.Value]*ir.Block{}}
	var header *ir.Block
	for _, b := range f.Blocks {
		if b.LocalName == "loop" {
			header = b
		}
		for _, inst := range b.Insts {
			if v, ok := inst.(value.Value); ok {
				p.BlockOf[v] = b
			}
		}
	}
	l := cfg.LoopOf[header]
	if l == nil || l.Header != header {
		t.Fatal("no loop headed by %loop")
	}
	return p, l
}

// countedLoop is a loop over i64 %i from %s, stepped by STEP, continuing
// while CMP(%i + OFF, %n).
const countedLoop = `
define void @f(i64 %%s, i64 %%n) {
entry:
  br label %%loop
loop:
  %%i = phi i64 [ %%s, %%entry ], [ %%i.next, %%loop ]
  %%i.next = add nsw i64 %%i, %d
  %%x = add nsw i64 %%i, %d
  %%c = icmp %s i64 %%x, %%n
  br i1 %%c, label %%loop, label %%exit
exit:
  ret void
}
`

// TestHeaderCount runs the count HeaderCount emits, for starts and bounds
// around each other, against the loop itself: the header runs once, and
// once more for each x_k = start + offset + k·step that passes the test.
func TestHeaderCount(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		step, offset int64
		cmp          string
		exact        bool
	}{
		{1, 1, "slt", true},
		{1, 0, "sle", true},
		{3, 0, "slt", true},
		{3, 2, "sle", true},
		{-2, 0, "sgt", true},
		{-1, -1, "sge", true},
		{1, 0, "ult", false}, // unsigned: no exact count
		{2, 0, "ne", true},   // 64-bit, small step: meets the bound
		{5, 0, "eq", true},   // continues while equal: once at most
	} {
		name := fmt.Sprintf("%s step %d offset %d", c.cmp, c.step, c.offset)
		p, l := loopFunc(t, fmt.Sprintf(countedLoop, c.step, c.offset, c.cmp))
		tc, ok := p.TripCount(l)
		if !ok {
			t.Errorf("%s: no trip count", name)
			continue
		}
		if tc.Step != c.step || tc.Offset != c.offset || tc.Start != value.Value(p.F.Params[0]) || tc.Bound != value.Value(p.F.Params[1]) || !tc.Every {
			t.Errorf("%s: got step %d offset %d start %v bound %v every %v", name, tc.Step, tc.Offset, tc.Start, tc.Bound, tc.Every)
		}
		if ExactCount(tc) != c.exact {
			t.Errorf("%s: ExactCount = %v", name, !c.exact)
		}
		for s := int64(-7); s <= 7; s++ {
			for n := int64(-7); n <= 7; n++ {
				want, ok := simulate(c.step, s+c.offset, n, c.cmp)
				if !ok || (!c.exact && (s < 0 || n < 0)) {
					continue // a loop that wraps, or an unsigned test across 0: an estimate only
				}
				blk := ir.NewBlock("")
				val := func(v value.Value) value.Value {
					switch v {
					case p.F.Params[0]:
						return constant.NewInt(types.I64, s)
					case p.F.Params[1]:
						return constant.NewInt(types.I64, n)
					}
					return v
				}
				if got := eval(t, blk, HeaderCount(blk, tc, val, true)); got != want {
					t.Errorf("%s, start %d, bound %d: count %d, want %d", name, s, n, got, want)
				}
			}
		}
	}
}

// simulate counts the header executions of the loop: false where the loop
// would run past 1000 iterations (wrapping around).
func simulate(step, x, n int64, cmp string) (int64, bool) {
	pass := map[string]func(a, b int64) bool{
		"slt": func(a, b int64) bool { return a < b }, "sle": func(a, b int64) bool { return a <= b },
		"sgt": func(a, b int64) bool { return a > b }, "sge": func(a, b int64) bool { return a >= b },
		"ult": func(a, b int64) bool { return uint64(a) < uint64(b) }, "ne": func(a, b int64) bool { return a != b },
		"eq": func(a, b int64) bool { return a == b },
	}[cmp]
	count := int64(1)
	for ; pass(x, n); x += step {
		if count++; count > 1000 {
			return 0, false
		}
	}
	return count, true
}

// eval evaluates v, an instruction of blk over constants (what HeaderCount
// emits).
func eval(t *testing.T, blk *ir.Block, v value.Value) int64 {
	t.Helper()
	vals := map[value.Value]int64{}
	get := func(x value.Value) int64 {
		if c, ok := x.(*constant.Int); ok {
			return c.X.Int64()
		}
		r, ok := vals[x]
		if !ok {
			t.Fatalf("no value for %v", x)
		}
		return r
	}
	for _, inst := range blk.Insts {
		var r int64
		switch x := inst.(type) {
		case *ir.InstAdd:
			r = get(x.X) + get(x.Y)
		case *ir.InstSub:
			r = get(x.X) - get(x.Y)
		case *ir.InstMul:
			r = get(x.X) * get(x.Y)
		case *ir.InstSDiv:
			r = get(x.X) / get(x.Y)
		case *ir.InstZExt:
			r = get(x.From)
		case *ir.InstSelect:
			r = get(x.ValueFalse)
			if get(x.Cond) != 0 {
				r = get(x.ValueTrue)
			}
		case *ir.InstICmp:
			a, b := get(x.X), get(x.Y)
			holds := map[enum.IPred]bool{enum.IPredEQ: a == b, enum.IPredSLT: a < b, enum.IPredSGT: a > b}
			h, ok := holds[x.Pred]
			if !ok {
				t.Fatalf("predicate %v", x.Pred)
			}
			if h {
				r = 1
			}
		default:
			t.Fatalf("cannot evaluate %s", inst.LLString())
		}
		vals[inst.(value.Value)] = r
	}
	return get(v)
}

// TestTripCountNone: loops whose exit is not a comparison of an induction
// variable with an invariant bound have no trip count.
func TestTripCountNone(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{
		"exit on data": `
define void @f(double* %p) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add i64 %i, 1
  %q = getelementptr double, double* %p, i64 %i
  %x = load double, double* %q
  %c = fcmp olt double %x, 1.0
  br i1 %c, label %loop, label %exit
exit:
  ret void
}`,
		"bound changes in the loop": `
define void @f(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %m = phi i64 [ %n, %entry ], [ %m.next, %loop ]
  %i.next = add i64 %i, 1
  %m.next = sub i64 %m, 1
  %c = icmp slt i64 %i.next, %m.next
  br i1 %c, label %loop, label %exit
exit:
  ret void
}`,
	} {
		p, l := loopFunc(t, src)
		if tc, ok := p.TripCount(l); ok {
			t.Errorf("%s: trip count %+v", name, tc)
		}
	}
}
