#ifndef REWIND_CLWS_SHIM_H
#define REWIND_CLWS_SHIM_H
#include <libwebsockets.h>

// LWS_PRE is an expression macro: the headroom lws_write needs before the payload.
static inline size_t rewind_lws_pre(void) {
    return LWS_PRE;
}

#include <dlfcn.h>
// OpenSSL's words for why a server's certificate failed verification ("unable to get local issuer
// certificate", "hostname mismatch"), from the X509_STORE_CTX lws hands to
// LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION; NULL when they cannot be had. The two
// functions are looked up in the libcrypto lws already loaded, so the package links no OpenSSL
// of its own (and a libwebsockets on another TLS library simply gives NULL).
static inline const char *rewind_x509_verify_error(void *x509_store_ctx) {
#if defined(LWS_WITH_TLS) && !defined(LWS_WITH_MBEDTLS)
    static void *process;
    if (!x509_store_ctx) return NULL;
    if (!process) process = dlopen(NULL, RTLD_LAZY);
    if (!process) return NULL;
    int (*get_error)(void *) = (int (*)(void *))dlsym(process, "X509_STORE_CTX_get_error");
    const char *(*describe)(long) = (const char *(*)(long))dlsym(process, "X509_verify_cert_error_string");
    if (!get_error || !describe) return NULL;
    return describe(get_error(x509_store_ctx));
#else
    (void)x509_store_ctx;
    return NULL;
#endif
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
