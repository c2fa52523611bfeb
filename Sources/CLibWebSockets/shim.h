#ifndef REWIND_CLWS_SHIM_H
#define REWIND_CLWS_SHIM_H
#include <libwebsockets.h>

// LWS_PRE is an expression macro: the headroom lws_write needs before the payload.
static inline size_t rewind_lws_pre(void) {
    return LWS_PRE;
}

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
// Hands freed heap at the top and in whole free pages back to the system (glibc only).
static inline void rewind_release_free_memory(void) {
    malloc_trim(0);
}
#else
static inline void rewind_release_free_memory(void) {}
#endif
#endif
