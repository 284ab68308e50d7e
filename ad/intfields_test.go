package ad

import (
	"strings"
	"testing"
)

// TestIntFieldsAtVariableIndex: integer tags beside doubles in arrays of
// structs on the stack, written and read only at variable indices, copied
// as 32-bit words and swapped byte by byte through a pointer into
// 32-byte elements whose doubles are at bytes 0, 8 and 16. The type
// analysis spreads the declared integer field to every element and reads
// what every element holds; the one-byte reads meet no double. Gradient
// against central finite differences at every level
// (testdata/int_fields_at_variable_index.c).
func TestIntFieldsAtVariableIndex(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "int_fields_at_variable_index.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if strings.Contains(out, "FAIL") || !strings.Contains(out, "tags done") {
				t.Fatal(out)
			}
		})
	}
}

// TestIntFieldsAtVariableIndexCXX: the same in C++'s shape (constructors
// zeroing the tags, vector operators, a template swap through references;
// testdata/int_fields_at_variable_index.cc).
func TestIntFieldsAtVariableIndexCXX(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "int_fields_at_variable_index.cc")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildCXX(t, src, o))
			if strings.Contains(out, "FAIL") || !strings.Contains(out, "tags done") {
				t.Fatal(out)
			}
		})
	}
}

// TestIntOverFloatInUnionArray: a union whose IR type is its integer
// member ([2 x i64] beside a double), doubles and integers stored at
// variable indices: the integers do not spread over the doubles' bytes,
// so the double they overwrite loses its derivative and the others keep
// theirs (testdata/int_over_float_in_union_array.c).
func TestIntOverFloatInUnionArray(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "int_over_float_in_union_array.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) {
			out := run(t, buildC(t, src, o))
			if strings.Contains(out, "FAIL") || !strings.Contains(out, "union cells done") {
				t.Fatal(out)
			}
		})
	}
}
