package lto

import (
	"strings"
	"testing"

	"github.com/gozyme/gozyme/ad"
)

// An intrinsic without a derivative rule is explained as LLVM's own
// operation, not as a function some library of the link would define.
func TestExplainMissingBodyIntrinsic(t *testing.T) {
	err := explainMissingBody(&ad.Error{Func: "f", Msg: "no derivative for the call to 'llvm.x86.sse.rcp.ss'", Callee: "llvm.x86.sse.rcp.ss"}, nil, nil)
	msg := err.Error()
	if !strings.Contains(msg, "is an LLVM intrinsic") || strings.Contains(msg, "shared library") {
		t.Errorf("got %q", msg)
	}
}
