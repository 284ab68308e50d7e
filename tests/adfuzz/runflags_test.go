package adfuzz

import (
	"reflect"
	"testing"
)

func TestRunLineFlags(t *testing.T) {
	const text = `// RUN: %clang++ -std=c++11 -fno-exceptions -ffast-math -O0 %s -S -emit-llvm -o - | %opt - %OPloadEnzyme %enzyme -enzyme-loose-types -S | %lli -
// RUN: %clang++ -std=c++11 -fno-exceptions -ffast-math -O2 %s -S -emit-llvm -o - | %opt - %OPloadEnzyme %enzyme -S | %lli -
// RUN: if [ %llvmver -ge 12 ]; then %clang -O3 -fno-vectorize -Xclang -new-struct-path-tbaa -mllvm -force-vector-width=1 -mllvm -enzyme-inline=1 -g %s -S -emit-llvm -o - %loadClangEnzyme -lm; fi
// RUN: %clang -fopenmp -std=c11 %O0TBAA -fno-unroll-loops %s -S -emit-llvm -o - | %opt - %OPloadEnzyme %enzyme -S | %clang -fopenmp -x ir - -o %s.out && %s.out
#include <stdio.h>`
	cases := []struct {
		level string
		want  []string
		ok    bool
	}{
		{"2", []string{"-std=c++11", "-fno-exceptions", "-ffast-math"}, true},
		{"3", []string{"-fno-vectorize", "-Xclang", "-new-struct-path-tbaa", "-mllvm", "-force-vector-width=1", "-g", "-lm"}, true},
		{"0", []string{"-std=c++11", "-fno-exceptions", "-ffast-math"}, true},
		{"1", nil, false},
	}
	for _, c := range cases {
		got, ok := RunLineFlags(text, c.level)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("-O%s: got %q, %v; want %q, %v", c.level, got, ok, c.want, c.ok)
		}
	}
	// The OpenMP line: the level comes from %O0TBAA; the second clang
	// (-x ir, reading the output of opt) is another command.
	got, ok := RunLineFlags(`// RUN: %clang -fopenmp -std=c11 %O0TBAA -fno-unroll-loops %s -S -emit-llvm -o - | %clang -fopenmp -x ir - -o %s.out`, "0")
	if want := []string{"-fopenmp", "-std=c11", "-fno-unroll-loops"}; !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("OpenMP line: got %q, %v; want %q", got, ok, want)
	}
	// Enzyme does not run this line on LLVM 14 (nor 15).
	if _, ok := RunLineFlags(`// RUN: if [ %llvmver -ne 14 ] && [ %llvmver -ne 15 ]; then %clang++ -fno-exceptions -O2 %s -S -emit-llvm -o - | %lli - ; fi`, "2"); ok {
		t.Errorf("a RUN line for other LLVM versions is used")
	}
	if _, ok := RunLineFlags(`// RUN: %clang -DTRUNC_OP -O2 %s -o %s.a.out %newLoadClangEnzyme -include enzyme/fprt/mpfr.h -lm -lmpfr && %s.a.out`, "2"); ok {
		t.Errorf("a RUN line including Enzyme's headers is not usable")
	}
}
