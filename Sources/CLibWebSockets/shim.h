#ifndef REWIND_CLWS_SHIM_H
#define REWIND_CLWS_SHIM_H
#include <libwebsockets.h>

// LWS_PRE is an expression macro: the headroom lws_write needs before the payload.
static inline size_t rewind_lws_pre(void) {
    return LWS_PRE;
}
#endif
