package lto

import (
	"bytes"

	"github.com/gozyme/gozyme/ad"
)

// ADEntryPoints are the Enzyme functions whose calls make a module an AD
// root (with those gozyme reports as unsupported). Package ad's list is
// the only one (TestEntryPointsScanned checks that every __enzyme_ name ad
// handles is scanned for).
var ADEntryPoints = ad.EntryPointNames()

// HasADRoots reports whether bitcode names an Enzyme entry point. LLVM 14
// bitcode keeps symbol names raw in its STRTAB, so a byte search finds them
// (including suffixed variants such as __enzyme_autodiff_f).
func HasADRoots(bitcode []byte) bool {
	for _, name := range ADEntryPoints {
		if bytes.Contains(bitcode, []byte(name)) {
			return true
		}
	}
	return false
}
