package ad

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/toolchains"
	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// rbLockstepModule is a module with the lockstep tree routines for i8*
// nodes, primal and one shadow lane, behind the C functions
// rb_lockstep.cc declares (the insertion inside an open shadow set, which
// forgets the new node before it closes).
func rbLockstepModule() *ir.Module {
	m := ir.NewModule()
	d := newDiffer(m, Options{})
	p := types.I8Ptr
	msg := d.message(nil, "lockstep walk")
	params := func(names ...string) []*ir.Param {
		var ps []*ir.Param
		for _, n := range names {
			t := types.Type(p)
			if n == "left" {
				t = types.I1
			}
			ps = append(ps, ir.NewParam(n, t))
		}
		return ps
	}
	rt := d.shadowSetRuntime(1)
	{
		ps := params("left", "x", "p", "h", "sx", "sp", "sh")
		f := m.NewFunc("rb_insert", types.Void, ps...)
		b := f.NewBlock("")
		save := b.NewAlloca(types.NewArray(shadowSetWords, types.I64))
		raw := b.NewBitCast(save, p)
		b.NewCall(rt.enter, raw)
		b.NewCall(d.rbHelper(rbInsert, p, 2, 1), ps[0], ps[1], ps[4], ps[2], ps[5], ps[3], ps[6], msg)
		b.NewCall(rt.forget, ps[4])
		b.NewCall(rt.leave, raw, msg)
		b.NewRet(nil)
	}
	{
		ps := params("z", "h", "sz", "sh")
		f := m.NewFunc("rb_erase", p, ps...)
		b := f.NewBlock("")
		b.NewRet(b.NewCall(d.rbHelper(rbErase, p, 2, 1), ps[0], ps[2], ps[1], ps[3]))
	}
	for _, w := range []struct {
		name string
		op   rbTreeOp
	}{{"rb_increment", rbIncrement}, {"rb_decrement", rbDecrement}} {
		ps := params("x", "sx", "want")
		f := m.NewFunc(w.name, p, ps...)
		b := f.NewBlock("")
		args := []value.Value{ps[0], ps[1], ps[2], msg}
		b.NewRet(b.NewCall(d.rbHelper(w.op, p, 2, 1), args...))
	}
	return m
}

// TestRbTreeLockstep: the lockstep insertion, erase and walks on a
// primal tree and its shadow against libstdc++'s routines on random
// sequences of insertions and erases, with shadows whose colors and links
// under null primal links are junk too.
func TestRbTreeLockstep(t *testing.T) {
	t.Parallel()
	if _, err := toolchains.Tool("clang"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	ll := filepath.Join(dir, "rb.ll")
	if err := os.WriteFile(ll, []byte(rbLockstepModule().String()), 0o644); err != nil {
		t.Fatal(err)
	}
	src := testdataC(t, "rb_lockstep.cc")
	for _, scramble := range []string{"0", "1"} {
		cc := filepath.Join(dir, "driver"+scramble+".cc")
		if err := os.WriteFile(cc, []byte("#define SCRAMBLE "+scramble+"\n"+src), 0o644); err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(dir, "lockstep"+scramble)
		if _, err := toolchains.Run(context.Background(), "clang++", "-O1", "-Wno-override-module", cc, ll, "-o", exe); err != nil {
			t.Fatal(err)
		}
		if out := run(t, exe); !strings.Contains(out, "failures 0") {
			t.Errorf("scramble %s:\n%s", scramble, out)
		}
	}
}
