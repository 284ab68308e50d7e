package ad

import (
	"strings"
	"testing"
)

// TestLogIntoGlobalContainer: a differentiated function appends records
// holding the pointers it was given (pointers with shadows) to a log kept
// in a global, grown by realloc or by std::vector's push_back: the write
// goes to the global's storage or to a fresh reallocation, and neither
// gets a shadow (nothing differentiated reads the log back). The
// gradients match analytic values and the log holds the primal pointers.
func TestLogIntoGlobalContainer(t *testing.T) {
	t.Parallel()
	src := checkPrelude + testdataC(t, "log_into_global_container.c")
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, src, "2")) })
}

// TestChoiceWithGlobalReadBack: a pointer chosen between a global's
// storage and a local allocation, written with a derivative and the local
// allocation read back: the derivative would be lost on the global's path,
// so it is an error (as before), not a gradient missing that path.
func TestChoiceWithGlobalReadBack(t *testing.T) {
	t.Parallel()
	src := testdataC(t, "choice_with_global_read_back.c")
	for _, o := range []string{"0", "2"} {
		_, err := tryBuildC(t, src, o)
		if err == nil || !strings.Contains(err.Error(), "chosen between memory of a global without a shadow and the call to 'malloc', which the function reads back") {
			t.Errorf("-O%s: want an error, got %v", o, err)
		}
	}
}
