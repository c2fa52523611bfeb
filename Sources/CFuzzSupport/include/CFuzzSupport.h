#ifndef REWIND_CFUZZSUPPORT_H
#define REWIND_CFUZZSUPPORT_H
#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer's driver with `callback` when the binary was linked with libFuzzer
/// (`-sanitize=fuzzer`); returns -1 at once otherwise.
int rewind_run_libfuzzer(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
