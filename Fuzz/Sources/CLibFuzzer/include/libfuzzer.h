#ifndef PRINTBRIDGE_LIBFUZZER_H
#define PRINTBRIDGE_LIBFUZZER_H
#include <stddef.h>
#include <stdint.h>

/* libFuzzer's driver (compiler-rt, LLVM 11+), linked by -sanitize=fuzzer:
   runs the fuzzing loop with `callback` as the target. Called from a
   program's own main, because SwiftPM names an executable's main itself. */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
