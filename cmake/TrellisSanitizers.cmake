# Sanitizer and fuzzer builds (docs/reliability.md; scripts/sanitize.sh and
# scripts/fuzz.sh configure them). Included by the top-level CMakeLists after
# HandleLLVMOptions and before any target is defined.
#
# TRELLIS_ENABLE_SANITIZERS  AddressSanitizer + UndefinedBehaviorSanitizer on
#                            every Trellis target. libMLIR.so, libLLVM.so and
#                            JIT-compiled code stay uninstrumented.
# TRELLIS_ENABLE_FUZZERS     The libFuzzer targets of fuzz/ (clang only).
#                            Implies the sanitizers, adds coverage
#                            instrumentation (-fsanitize=fuzzer-no-link) to the
#                            libraries so the fuzzer is guided through Trellis
#                            code, and keeps assert() alive (-UNDEBUG).
# TRELLIS_FUZZ_SANITIZERS    In a fuzzer build, the sanitizers of every Trellis
#                            target: "address;undefined" (default) or
#                            "undefined" (scripts/fuzz.sh --ci: no ASan
#                            allocator, more executions per second in a short
#                            run). npy_fuzzer always adds ASan
#                            (fuzz/CMakeLists.txt).

option(TRELLIS_ENABLE_SANITIZERS
  "Build Trellis with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(TRELLIS_ENABLE_FUZZERS
  "Build the libFuzzer targets of fuzz/ (needs clang; implies the sanitizers)"
  OFF)

if(TRELLIS_ENABLE_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "TRELLIS_ENABLE_FUZZERS needs clang (libFuzzer): "
      "configure with -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22")
  endif()
  set(TRELLIS_ENABLE_SANITIZERS ON)
endif()
set(TRELLIS_FUZZ_SANITIZERS "address;undefined" CACHE STRING
  "Sanitizers of the Trellis targets in a fuzzer build (address;undefined or undefined)")

if(NOT TRELLIS_ENABLE_SANITIZERS)
  return()
endif()

# vptr: libMLIR.so's classes are checked through typeinfo the sanitizer
# runtime cannot always match across the uninstrumented library boundary.
# function (clang): an indirect call into JIT-compiled code would read the
# bytes before the callee, which may not be mapped.
# (One flag per sanitizer: no commas inside the generator expressions below.)
set(TRELLIS_SANITIZERS address undefined)
if(TRELLIS_ENABLE_FUZZERS)
  set(TRELLIS_SANITIZERS ${TRELLIS_FUZZ_SANITIZERS})
endif()
set(TRELLIS_SANITIZER_FLAGS)
foreach(sanitizer IN LISTS TRELLIS_SANITIZERS)
  list(APPEND TRELLIS_SANITIZER_FLAGS -fsanitize=${sanitizer})
endforeach()
list(APPEND TRELLIS_SANITIZER_FLAGS
  -fno-sanitize=vptr
  -fno-sanitize-recover=all
  -fno-omit-frame-pointer)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  list(APPEND TRELLIS_SANITIZER_FLAGS -fno-sanitize=function -gline-tables-only)
else()
  list(APPEND TRELLIS_SANITIZER_FLAGS -g1)
endif()
set(TRELLIS_SANITIZER_COMPILE_FLAGS ${TRELLIS_SANITIZER_FLAGS})
if(TRELLIS_ENABLE_FUZZERS)
  list(APPEND TRELLIS_SANITIZER_COMPILE_FLAGS -fsanitize=fuzzer-no-link -UNDEBUG)
endif()

# Targets that stay uninstrumented: the AOT runtime is a static C library that
# users' programs link with their own compiler and flags (a plain `gcc` in
# test/Integration/Embedding/aot.test), which would not provide the
# sanitizer runtime.
set(TRELLIS_UNSANITIZED_TARGETS TrellisAotRuntime)
set(_trellis_sanitized
  "$<NOT:$<IN_LIST:$<TARGET_PROPERTY:NAME>,${TRELLIS_UNSANITIZED_TARGETS}>>")
foreach(flag IN LISTS TRELLIS_SANITIZER_COMPILE_FLAGS)
  add_compile_options("$<${_trellis_sanitized}:${flag}>")
endforeach()
foreach(flag IN LISTS TRELLIS_SANITIZER_FLAGS)
  add_link_options("$<${_trellis_sanitized}:${flag}>")
endforeach()

# clang links the sanitizer runtimes into executables only; a shared library
# (libTrellisAPI.so, ...) takes the runtime's symbols from the executable that
# loads it, so it cannot be linked with -z defs.
string(REPLACE "-Wl,-z,defs" "" CMAKE_SHARED_LINKER_FLAGS
  "${CMAKE_SHARED_LINKER_FLAGS}")
message(STATUS "Trellis: sanitizers on (${TRELLIS_SANITIZER_COMPILE_FLAGS})")

# Built into every sanitized executable, so that a tool run bare (under
# mpirun, by the CLI contract check) behaves as under scripts/sanitize.sh:
# dlclose does nothing (scripts/sanitizers/keep_loaded.c: Open MPI's
# components stay mapped, so leak stacks name them) and the LSan
# suppressions of scripts/sanitizers/lsan.supp apply
# (__lsan_default_suppressions, the runtime's hook).
file(STRINGS "${PROJECT_SOURCE_DIR}/scripts/sanitizers/lsan.supp"
  _trellis_lsan_suppressions REGEX "^leak:")
list(JOIN _trellis_lsan_suppressions "\\n" _trellis_lsan_suppressions)
set(_trellis_sanitizer_defaults "${CMAKE_BINARY_DIR}/sanitizer_defaults.c")
file(WRITE "${_trellis_sanitizer_defaults}"
  "#include \"${PROJECT_SOURCE_DIR}/scripts/sanitizers/keep_loaded.c\"\n"
  "const char *__lsan_default_suppressions(void) {\n"
  "  return \"${_trellis_lsan_suppressions}\\n\";\n}\n")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  "${PROJECT_SOURCE_DIR}/scripts/sanitizers/lsan.supp")
add_library(TrellisSanitizerDefaults OBJECT "${_trellis_sanitizer_defaults}")
# BUILD_INTERFACE: the entry also lands in the exported link interface of the
# static libraries, where programs built against an installed Trellis
# (test/Integration/Embedding/install.test) have no such target.
set(_trellis_executable "$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>")
link_libraries(
  "$<BUILD_INTERFACE:$<${_trellis_executable}:TrellisSanitizerDefaults>>")
