#include "CFuzzSupport.h"

// Present only when libFuzzer is linked in; weak so that ordinary builds link without it.
extern int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t)) __attribute__((weak));

int rewind_run_libfuzzer(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size)) {
    if (!LLVMFuzzerRunDriver) return -1;
    return LLVMFuzzerRunDriver(argc, argv, callback);
}
