package ad

import "testing"

func TestDataStructures(t *testing.T) {
	t.Parallel()
	src := memoryPrelude + testdataC(t, "data_structures.c")
	grad := `
#define GRADCHECK_ALL GRADCHECK(energy_flat); GRADCHECK(list_sum);
`
	for _, o := range optLevels {
		t.Run("O"+o, func(t *testing.T) { run(t, buildC(t, grad+src, o)) })
	}
	t.Run("leaks", func(t *testing.T) { runLeakChecked(t, buildC(t, grad+src, "1")) })
}
