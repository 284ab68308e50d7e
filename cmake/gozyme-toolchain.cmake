# CMake toolchain file: build C and C++ with gozyme.
#
#   cmake -S . -B build -DCMAKE_TOOLCHAIN_FILE=/path/to/gozyme/cmake/gozyme-toolchain.cmake
#
# Compiles go through gozyme-cc / gozyme-c++ (objects carry their bitcode);
# CMake links through the compiler driver, so every link reaches gozyme-ld,
# which differentiates the __enzyme_* calls. The commands are looked up in
# GOZYME_BIN (a cache variable; default: ../bin beside this file, where
# `make build` puts them; the environment variable GOZYME_BIN also works).

if(NOT DEFINED GOZYME_BIN)
  if(DEFINED ENV{GOZYME_BIN})
    set(_gozyme_bin_default "$ENV{GOZYME_BIN}")
  else()
    set(_gozyme_bin_default "${CMAKE_CURRENT_LIST_DIR}/../bin")
  endif()
  get_filename_component(_gozyme_bin_default "${_gozyme_bin_default}" ABSOLUTE)
  set(GOZYME_BIN "${_gozyme_bin_default}" CACHE PATH "Directory holding gozyme-cc, gozyme-c++ and gozyme-ld")
endif()

# try_compile projects (compiler checks, check_c_source_compiles) read this
# file again: hand them the same GOZYME_BIN.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES GOZYME_BIN)

foreach(_gozyme_cmd gozyme-cc gozyme-c++ gozyme-ld)
  if(NOT EXISTS "${GOZYME_BIN}/${_gozyme_cmd}")
    message(FATAL_ERROR "gozyme: ${GOZYME_BIN}/${_gozyme_cmd} not found: run `make build` in the gozyme checkout or pass -DGOZYME_BIN=<dir>")
  endif()
endforeach()

set(CMAKE_C_COMPILER "${GOZYME_BIN}/gozyme-cc")
set(CMAKE_CXX_COMPILER "${GOZYME_BIN}/gozyme-c++")
# Fortran, for projects that enable it: gozyme-fc wraps flang-new-16.
if(EXISTS "${GOZYME_BIN}/gozyme-fc")
  set(CMAKE_Fortran_COMPILER "${GOZYME_BIN}/gozyme-fc")
endif()

# Fat objects are ordinary ELF objects: binutils' ar archives them (and
# indexes their native symbols); llvm-ar-14 is the fallback.
find_program(GOZYME_AR NAMES ar llvm-ar-14 llvm-ar)
find_program(GOZYME_RANLIB NAMES ranlib llvm-ranlib-14 llvm-ranlib)
if(GOZYME_AR)
  set(CMAKE_AR "${GOZYME_AR}" CACHE FILEPATH "Archiver")
endif()
if(GOZYME_RANLIB)
  set(CMAKE_RANLIB "${GOZYME_RANLIB}" CACHE FILEPATH "Archive indexer")
endif()
