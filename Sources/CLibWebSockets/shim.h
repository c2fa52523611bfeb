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

#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
// Sets the calling thread's nice value (on Linux a thread is a task of its own, and
// setpriority on its id changes that thread alone); 0 on success.
static inline int rewind_set_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}
// Names the calling thread as the system shows it (/proc/PID/task/TID/comm, top -H; 15 bytes).
static inline void rewind_set_thread_name(const char *name) {
    prctl(PR_SET_NAME, name, 0, 0, 0);
}
#else
static inline int rewind_set_thread_nice(int nice) {
    (void)nice;
    return -1;
}
static inline void rewind_set_thread_name(const char *name) {
    (void)name;
}
#endif
#endif
