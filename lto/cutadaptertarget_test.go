package lto

import (
	"strings"
	"testing"
)

// The adapter takes the target attributes its callers agree on, from their
// attribute groups, the features and not the CPU's name; callers that
// differ leave it without any.
func TestAdapterTarget(t *testing.T) {
	t.Parallel()
	const feats = `"target-features"="+avx,+avx2,+fma"`
	groups := "\nattributes #0 = { noinline \"target-cpu\"=\"x86-64-v3\" " + feats + ` "tune-cpu"="generic" }` +
		"\nattributes #1 = { nounwind \"target-cpu\"=\"x86-64-v3\" \"target-features\"=\"+avx,+avx2\" }\n"
	withGroup := func(text, fn, group string) string {
		return strings.Replace(text, "define internal void @"+fn+"(double* noundef %x, double* noundef %dx) {",
			"define internal void @"+fn+"(double* noundef %x, double* noundef %dx) "+group+" {", 1)
	}
	adapterLine := func(text string) string {
		m, names := adapted(t, text)
		if len(names) != 1 {
			t.Fatalf("adapters %v", names)
		}
		return m.lines[m.ents["@gozyme.entry.0"].start]
	}
	one := withGroup(adapterModule(entryCallLine, groups), "_ZL4gradPdS_", "#0")
	if got, want := adapterLine(one), `i32 noundef %p5) `+feats+` {`; !strings.HasSuffix(got, want) {
		t.Errorf("adapter %q, want the suffix %q", got, want)
	}
	// A second caller with other features: no attributes.
	second := `
define internal void @_ZL5grad2PdS_(double* noundef %x, double* noundef %dx) #1 {
  %1 = load i32, i32* @enzyme_dup, align 4
  %2 = load i32, i32* @enzyme_const, align 4
` + entryCallLine + `
  ret void
}
`
	two := withGroup(adapterModule(entryCallLine, groups+second), "_ZL4gradPdS_", "#0")
	if got := adapterLine(two); strings.Contains(got, "target-") {
		t.Errorf("callers differ, the adapter takes %q", got)
	}
	// The same callers agreeing: the attributes.
	agree := withGroup(adapterModule(entryCallLine, groups+strings.Replace(second, " #1 {", " #0 {", 1)), "_ZL4gradPdS_", "#0")
	if got := adapterLine(agree); !strings.Contains(got, feats) {
		t.Errorf("callers agree, the adapter is %q", got)
	}
	// None written: none taken.
	if got := adapterLine(adapterModule(entryCallLine, "")); strings.Contains(got, "target-") {
		t.Errorf("adapter %q", got)
	}
}
