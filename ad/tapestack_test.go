package ad

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad/irfacts"
	"github.com/llir/llvm/ir"
)

// TestTapeStackRun: the tapes of pairs called from combined gradients come
// from the per-thread tape stack (recursion with loops at several depths,
// calls in loops, records growing above calls' tapes, two threads), those
// of a pair the user splits from malloc, reversed out of order; every
// gradient against central differences, leak-checked.
func TestTapeStackRun(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "tape_stack.c")
	for _, o := range []string{"1", "2", "3"} {
		o := o
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			out := run(t, buildC(t, src, o))
			if !strings.Contains(out, "OK") {
				t.Fatal(out)
			}
		})
	}
	t.Run("leaks", func(t *testing.T) {
		t.Parallel()
		runLeakChecked(t, buildC(t, src, "2"))
	})
}

// siteFactSuffix matches the call-site facts a split pair's name ends in:
// private contents (_pc) and tags written between its halves (_qt).
var siteFactSuffix = regexp.MustCompile(`(_pc[0-9]+|_qt[0-9.]*)+$`)

// TestTapeStackChoice: which pairs take their tapes from the stack: those
// combined gradients call (det_minor, leaf, mid, tri, and chain's quiet
// pair, which only the gradient of user calls), not the user's pair of
// user (__enzyme_augmentfwd) nor the pairs of chain it calls; the framed
// pairs (frametape.go: called once from a combined gradient, or in a loop)
// take no tape of their own, and those under the user's pair keep their
// loops' records on the heap.
func TestTapeStackChoice(t *testing.T) {
	t.Parallel()
	m := preADModuleC(t, testdataC(t, "tape_stack.c"), "2")
	if _, err := Differentiate(m, Options{}); err != nil {
		t.Fatal(err)
	}
	calls := func(f *ir.Func, name string) bool {
		for _, b := range f.Blocks {
			for _, inst := range b.Insts {
				if c, ok := inst.(*ir.InstCall); ok && irfacts.CalleeName(c) == name {
					return true
				}
			}
		}
		return false
	}
	heap := map[string]bool{"user_dc_r": true, "chain_dc_r": true}
	seen := map[string]bool{}
	for _, f := range m.Funcs {
		name, aug := f.Name(), true
		pair := strings.TrimPrefix(name, "__gozyme_aug_")
		if pair == name {
			pair, aug = strings.TrimPrefix(name, "__gozyme_rev_"), false
			if pair == name {
				continue
			}
		}
		// The call-site facts (split.go's siteFacts) end the name, a
		// framed pair's _f last: a combined gradient's call of chain
		// writing nothing in between (_qt) has a pair of its own, not the
		// user's.
		framed := strings.HasSuffix(pair, "_f")
		pair = strings.TrimSuffix(pair, "_f")
		base := siteFactSuffix.ReplaceAllString(pair, "")
		fn := base[:strings.LastIndex(strings.TrimSuffix(strings.TrimSuffix(base, "_q"), "_r"), "_")]
		seen[fn] = true
		onStack, onHeap := calls(f, "__gozyme_tape_free"), calls(f, "free")
		if aug {
			onStack, onHeap = calls(f, "__gozyme_tape_alloc"), calls(f, "malloc")
		}
		switch {
		case framed:
			// The tape is the caller's (frametape.go); only records of
			// loops may be on the stack, or on the heap in the pairs the
			// user's pair reaches (chain's recursive calls in its loop).
			if onHeap && !heap[pair] {
				t.Errorf("%s: a framed pair's memory is on the heap", name)
			}
		case heap[pair]:
			if onStack || !onHeap {
				t.Errorf("%s: the user's tapes are on the stack (stack %v, heap %v)", name, onStack, onHeap)
			}
		case !onStack || onHeap:
			t.Errorf("%s: tapes not on the stack (stack %v, heap %v)", name, onStack, onHeap)
		}
	}
	for _, fn := range []string{"det_minor", "leaf", "mid", "tri", "chain", "user"} {
		if !seen[fn] {
			t.Errorf("no pair of %s", fn)
		}
	}
}
