package ad

import "strings"

// Library functions no derivative flows through: I/O, strings, time,
// random numbers, assertions, the C++ runtime's streams and exceptions.
// Their calls are kept in the forward sweep and skipped in the reverse, as
// calls of functions listed in __enzyme_inactivefn are; a double printed or
// compared as a string carries nothing back.
var inactiveLibFuncs = map[string]bool{
	"printf": true, "fprintf": true, "sprintf": true, "snprintf": true, "vprintf": true, "vfprintf": true,
	"vsprintf": true, "vsnprintf": true, "__printf_chk": true, "__fprintf_chk": true, "__sprintf_chk": true,
	"__snprintf_chk": true, "__vfprintf_chk": true, "__vsnprintf_chk": true, "puts": true, "fputs": true,
	"putchar": true, "putc": true, "fputc": true, "fwrite": true, "fflush": true, "fopen": true, "fclose": true,
	"perror": true, "scanf": true, "sscanf": true, "fscanf": true, "__isoc99_scanf": true,
	"__isoc99_sscanf": true, "__isoc99_fscanf": true, "getchar": true, "fgets": true, "fgetc": true,
	"__assert_fail": true, "__assert_perror_fail": true, "abort": true, "exit": true, "_exit": true,
	"clock": true, "time": true, "gettimeofday": true, "clock_gettime": true,
	"rand": true, "srand": true, "random": true, "srandom": true, "rand_r": true, "drand48": true, "srand48": true,
	"strlen": true, "strnlen": true, "strcmp": true, "strncmp": true, "strcpy": true, "strncpy": true, "strcat": true,
	"strncat": true, "strdup": true, "memcmp": true, "bcmp": true, "atoi": true, "atol": true, "atof": true,
	"strtod": true, "strtof": true, "strtol": true, "strtoul": true, "strtoll": true, "strtoull": true,
	"__errno_location": true, "getenv": true, "write": true, "read": true, "usleep": true, "sleep": true,
	"__cxa_guard_acquire": true, "__cxa_guard_release": true, "__cxa_guard_abort": true, "__cxa_atexit": true,
	"__cxa_throw": true, "__cxa_allocate_exception": true, "__cxa_free_exception": true, "__cxa_begin_catch": true,
	"__cxa_end_catch": true, "__cxa_rethrow": true, "__cxa_pure_virtual": true, "_ZSt9terminatev": true,
	"__gxx_personality_v0": true,
	// Hashing and the hash tables' growth policy (std::unordered_map).
	"_ZSt11_Hash_bytesPKvmm": true, "_ZSt15_Fnv_hash_bytesPKvmm": true,
	"_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm": true,
	"_ZNKSt8__detail20_Prime_rehash_policy11_M_next_bktEm":      true,
	// The Fortran runtime's test of an array descriptor's contiguity
	// (before a section's copy-in): it reads the shape, no element.
	"_FortranAIsContiguous": true,
	// gozyme's advice that a tape's pages be huge (hugepages.go).
	tapeAdviseName: true,
}

// inactiveLibPrefixes are families of such functions: the C++ streams
// (std::ostream, std::istream, std::ios_base, ostream inserters), the
// standard library's throw helpers, std::string's members compiled into
// libstdc++ (characters carry no derivative, and no floating-point data
// lies behind a string's pointers), and the Fortran runtime's I/O.
var inactiveLibPrefixes = []string{
	"_ZNSt7__cxx1112basic_string", "_ZNKSt7__cxx1112basic_string",
	"_ZNSo", "_ZNSi", "_ZNSt8ios_base", "_ZNKSt5ctype", "_ZSt16__ostream_insert", "_ZStlsISt11char_traitsIcEE",
	"_ZSt4endl", "_ZNSt9basic_ios", "_ZNKSt9basic_ios", "_ZSt17__throw_", "_ZSt18__throw_", "_ZSt19__throw_",
	"_ZSt20__throw_", "_ZSt21__throw_", "_ZSt24__throw_", "_ZSt25__throw_", "_ZSt26__throw_", "_ZSt28__throw_",
	"_FortranAio", "_FortranAStop", "_FortranAAbort", "_FortranAReportFatal",
}

// isInactiveLibFunc reports a library function of those tables.
func isInactiveLibFunc(name string) bool {
	if inactiveLibFuncs[name] {
		return true
	}
	for _, p := range inactiveLibPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// inactiveLibWriters are those of them that store data they read (a file,
// a string, the terminal) into memory their pointer arguments point to:
// C's scanf family, read, fread and fgets, C++'s input streams, and the
// Fortran runtime's list- and format-directed input (READ). No derivative flows through
// them, but the value they overwrite had one, which must be cleared;
// skipped like the others they would leave it behind, a silent wrong
// derivative, so a call writing into memory that holds derivatives stops
// the link (inactiveWriterCall).
var inactiveLibWriters = map[string]bool{
	"scanf": true, "sscanf": true, "fscanf": true, "__isoc99_scanf": true, "__isoc99_sscanf": true,
	"__isoc99_fscanf": true, "read": true, "fread": true, "fgets": true,
}

// inactiveLibWriterPrefixes are families of them: the Fortran runtime's
// input routines (_FortranAioInputReal64, _FortranAioInputDescriptor,
// ...), std::istream's members (operator>>, _M_extract, read, get,
// getline) and its non-member extractors and std::getline.
var inactiveLibWriterPrefixes = []string{"_FortranAioInput", "_ZNSi", "_ZStrsI", "_ZSt7getline"}

// isInactiveLibWriter reports a function of inactiveLibWriters or
// inactiveLibWriterPrefixes.
func isInactiveLibWriter(name string) bool {
	if inactiveLibWriters[name] {
		return true
	}
	for _, p := range inactiveLibWriterPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
