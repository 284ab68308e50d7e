package ad

import "testing"

// TestMemberPointerInvokeRun: class methods called through C++
// member-function pointers from the differentiated function, as boost
// odeint calls its resize_impl (std::bind(&C::m, std::ref(*this), _1)),
// plus std::invoke and a virtual member pointer kept in a local. At -O0
// the callee is a phi of the pointer's virtual arm (loaded from the
// vtable) and its non-virtual arm (an inttoptr): a function pointer, code
// rather than memory, so it takes no shadow and the call dispatches on the
// primal. Reverse-mode gradients (x and the object's field) against
// central differences, forward-mode tangents against them, for a base
// object and a derived one overriding the virtual.
func TestMemberPointerInvokeRun(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "member_pointer_invoke.cc")
	for _, o := range optLevels {
		o := o
		t.Run("O"+o, func(t *testing.T) {
			t.Parallel()
			checkWants(t, run(t, buildCXXLinked(t, src, o)), "member pointers", []string{"ok"})
		})
	}
}
