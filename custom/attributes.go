package custom

import "strings"

// Enzyme's other attributes, given a meaning the same way as enzyme(...):
// gozyme-cc compiles with these -D definitions, which turn each into
// clang's annotate attribute; the annotations reach the link in
// llvm.global.annotations (definitions) or, for declarations, as
// registration globals (DeclaredInAST, RegistrationIR). Package ad reads
// both.
//
//	__attribute__((enzyme_inactive))              a function whose calls carry no derivative,
//	                                              or a global whose memory holds none
//	__attribute__((enzyme_function_like("log1p"))) a function differentiated as that math function
//	__attribute__((enzyme_nofree))                accepted (a hint gozyme has no use for)
//
// The annotation's text is AnnotationPrefix and the kind ("inactive",
// "nofree", "function_like:" and the name); its arguments repeat the kind
// and the name, for the AST dump, which does not show the text.
const (
	InactiveMacro     = `enzyme_inactive=annotate("enzyme:inactive", "inactive")`
	NoFreeMacro       = `enzyme_nofree=annotate("enzyme:nofree", "nofree")`
	FunctionLikeMacro = `enzyme_function_like(name)=annotate("enzyme:function_like:" name, "function_like", name)`
)

// AttributeMacros are all the -D definitions gozyme-cc compiles with.
var AttributeMacros = []string{AttributeMacro, InactiveMacro, NoFreeMacro, FunctionLikeMacro}

// IsAttributeKind reports the annotation kinds (the text after
// AnnotationPrefix) of the attributes above, which carry no rule.
func IsAttributeKind(kind string) bool {
	return kind == "inactive" || kind == "nofree" || strings.HasPrefix(kind, "function_like:")
}

// DefineFlags are AttributeMacros as -D options.
func DefineFlags() []string {
	out := make([]string, len(AttributeMacros))
	for i, m := range AttributeMacros {
		out[i] = "-D" + m
	}
	return out
}
