package wrapper

import "strings"

// separateArgs lists the clang driver options whose value is (or may be)
// given in the following argument(s), with how many arguments follow.
// Options spelled exactly like a key consume that many arguments; the same
// prefix with a joined value (-Ifoo, -MFdep.d) is a single argument.
// Anything not listed is a one-argument flag and passes through untouched.
var separateArgs = map[string]int{
	// Output, language, dependency files.
	"-o": 1, "-x": 1, "-MF": 1, "-MT": 1, "-MQ": 1, "-MJ": 1,
	"-dependency-file": 1, "-dependency-dot": 1, "-serialize-diagnostics": 1,
	"--serialize-diagnostics": 1, "--output": 1, "--language": 1,
	// Preprocessor.
	"-D": 1, "-U": 1, "-I": 1, "-A": 1, "-include": 1, "-include-pch": 1,
	"-imacros": 1, "-isystem": 1, "-isystem-after": 1, "-idirafter": 1,
	"-iquote": 1, "-iprefix": 1, "-iwithprefix": 1, "-iwithprefixbefore": 1,
	"-iwithsysroot": 1, "-isysroot": 1, "-iframework": 1,
	"-iframeworkwithsysroot": 1, "-cxx-isystem": 1, "-stdlib++-isystem": 1,
	"-ivfsoverlay": 1, "--define-macro": 1, "--undefine-macro": 1,
	"--include-directory": 1, "--include-directory-after": 1, "--include": 1,
	"--imacros": 1, "--include-prefix": 1, "--include-with-prefix": 1,
	"--include-with-prefix-after": 1, "--include-with-prefix-before": 1,
	"--assert": 1, "--system-header-prefix": 1, "--no-system-header-prefix": 1,
	// Forwarding to other tools.
	"-Xclang": 1, "-Xlinker": 1, "-Xassembler": 1, "-Xpreprocessor": 1,
	"-Xanalyzer": 1, "-Xarch_device": 1, "-Xarch_host": 1, "-Xcuda-fatbinary": 1,
	"-Xcuda-ptxas": 1, "-Xopenmp-target": 1, "-mllvm": 1, "--for-linker": 1,
	// Target and toolchain.
	"-target": 1, "-arch": 1, "-B": 1, "--prefix": 1, "-b": 1, "-G": 1,
	"-gcc-toolchain": 1, "--sysroot": 1, "-resource-dir": 1, "--resource": 1,
	"-ccc-gcc-name": 1, "-ccc-install-dir": 1, "-ccc-arcmt-migrate": 1,
	"-ccc-objcmt-migrate": 1, "-working-directory": 1, "--config": 1,
	"-mthread-model": 1, "-meabi": 1, "--param": 1, "--rtlib": 1, "--stdlib": 1,
	"--std": 1, "--analyzer-output": 1, "-arcmt-migrate-report-output": 1,
	"-fmodules-user-build-path": 1, "-module-dependency-dir": 1,
	"-gen-cdb-fragment-path": 1, "-dsym-dir": 1,
	"--print-file-name": 1, "--print-prog-name": 1,
	// Linker.
	"-L": 1, "-l": 1, "--library-directory": 1, "-u": 1, "--force-link": 1,
	"-T": 1, "-Tbss": 1, "-Tdata": 1, "-Ttext": 1, "-z": 1, "-e": 1, "-F": 1,
	"-framework": 1, "-weak_framework": 1, "-lazy_framework": 1,
	"-weak_library": 1, "-lazy_library": 1, "-rpath": 1, "-install_name": 1,
	"-current_version": 1, "-compatibility_version": 1, "-filelist": 1,
	"-force_load": 1, "-exported_symbols_list": 1, "-unexported_symbols_list": 1,
	"-bundle_loader": 1, "-allowable_client": 1, "-client_name": 1,
	"-dylib_file": 1, "-dylinker_install_name": 1, "-image_base": 1, "-init": 1,
	"-multiply_defined": 1, "-multiply_defined_unused": 1, "-pagezero_size": 1,
	"-read_only_relocs": 1, "-seg1addr": 1, "-seg_addr_table": 1,
	"-seg_addr_table_filename": 1, "-segs_read_only_addr": 1,
	"-segs_read_write_addr": 1, "-sub_library": 1, "-sub_umbrella": 1,
	"-umbrella": 1, "-weak_reference_mismatches": 1,
	"-segaddr": 2, "-sectobjectsymbols": 2,
	// Fortran (flang-new): module directories, MLIR options.
	"-J": 1, "-module-dir": 1, "-fintrinsic-modules-path": 1, "-mmlir": 1,
	"-sectalign": 3, "-sectcreate": 3, "-sectorder": 3, "-segcreate": 3, "-segprot": 3,
}

// arity returns how many following arguments the option a consumes.
func arity(a string) int {
	if n, ok := separateArgs[a]; ok {
		return n
	}
	// -Xarch_<arch> <arg> and -Xopenmp-target=<triple> <arg> take their
	// argument separately after a joined part.
	if strings.HasPrefix(a, "-Xarch_") || strings.HasPrefix(a, "-Xopenmp-target=") {
		return 1
	}
	return 0
}

// passThroughFlags are the options after which clang produces no object
// file (or nothing at all), so the wrapper has nothing to embed or mark.
var passThroughFlags = map[string]bool{
	"-E": true, "-M": true, "-MM": true, "-S": true, "-fsyntax-only": true,
	"-emit-llvm": true, "-emit-ast": true, "-emit-interface-stubs": true,
	"-precompile": true, "--precompile": true, "--analyze": true,
	"-rewrite-objc": true, "-rewrite-legacy-objc": true, "-###": true,
	"--version": true, "-dumpversion": true, "-dumpmachine": true,
	"--help": true, "-help": true, "--help-hidden": true, "--migrate": true,
	"--preprocess": true, "--assemble": true, "--dependencies": true,
	"--user-dependencies": true, "-module-file-info": true, "-verify-pch": true,
}

// isPassThroughFlag reports whether a (a single argument) stops clang
// before it writes an object file.
func isPassThroughFlag(a string) bool {
	if passThroughFlags[a] {
		return true
	}
	return strings.HasPrefix(a, "-print-") || strings.HasPrefix(a, "--print-")
}
