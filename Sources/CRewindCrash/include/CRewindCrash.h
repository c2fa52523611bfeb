#ifndef REWIND_CRASH_H
#define REWIND_CRASH_H

#include <stdint.h>
#include <string.h>

/// A crash journal's slot: one per recording session, in a file mapped shared, so what is
/// written here is in the file (the system's page cache) the moment it is written, and stays
/// there when the process dies of any signal, SIGKILL included. The next run reads it.
///
/// The store writes it before each reduce (`rewind_crash_will_reduce`) and after each record
/// (`rewind_crash_did_record`); the signal handler adds the signal and its time. Nothing else.
#define REWIND_CRASH_MAGIC 0x4A435752u /* "RWCJ" */
#define REWIND_CRASH_VERSION 1u
#define REWIND_CRASH_TEXT 200
#define REWIND_CRASH_ACTION 3072

typedef struct rewind_crash_slot {
    uint32_t magic;
    uint32_t version;
    int32_t pid;
    /// 1 while a reduce runs (from `will_reduce` to `did_record`), else 0.
    volatile int32_t reducing;
    /// The signal the process died of, 0 while it lives.
    volatile int32_t signal;
    volatile int32_t line;
    /// The seq the action being reduced is to have: one past the last recorded.
    volatile int64_t next_seq;
    /// The last seq handed to the recorder (-1: none yet).
    volatile int64_t recorded_through;
    /// When the reduce began and when the signal came, nanoseconds since 1970.
    volatile int64_t reduce_began_ns;
    volatile int64_t signal_at_ns;
    volatile uint16_t file_length;
    volatile uint16_t function_length;
    char file[REWIND_CRASH_TEXT];
    char function[REWIND_CRASH_TEXT];
    /// The session's uuid and the app's name, NUL-terminated (written once).
    char session[48];
    char app[128];
    /// The last seq the device's log has committed (-1: none yet): the handler waits, a while,
    /// for the recorder and the log's writer (other threads, still running) to commit what the
    /// recorder was handed before the crash.
    volatile int64_t committed_through;
    /// The action being reduced, as compact JSON, written after the signal by Rewind's watcher
    /// thread (woken through `rewind_crash_set_wake`'s pipe): 0 not yet, 1 written, 2 it could
    /// not be (too large: then only its type is written, as `{"type":…}`).
    volatile int32_t action_state;
    volatile uint32_t action_length;
    char action[REWIND_CRASH_ACTION];
} rewind_crash_slot;

/// The write end of the pipe the handler wakes Rewind's watcher thread through (-1: none).
void rewind_crash_set_wake(int fd);

/// How long the handler waits at most for the log to commit what was recorded: 500 ms.
#define REWIND_CRASH_WAIT_NS 500000000LL

/// Watches `slot`: the crash signals (SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP, SIGFPE) write
/// into it. The handlers are installed at the first slot, each keeping the one it replaced, which
/// it calls after writing (a crash reporter's). Returns 0, or -1 when 64 slots are watched.
int rewind_crash_watch(rewind_crash_slot *slot);

/// Stops watching `slot` (its session ended; the file is removed next).
void rewind_crash_unwatch(rewind_crash_slot *slot);

/// Before a reduce: which action, sent from where. `file` and `function` need not end in NUL.
static inline void rewind_crash_will_reduce(rewind_crash_slot *slot, int64_t wall_ns, const char *file, int file_length,
                                            int line, const char *function, int function_length) {
    if (file_length > REWIND_CRASH_TEXT) file_length = REWIND_CRASH_TEXT;
    if (function_length > REWIND_CRASH_TEXT) function_length = REWIND_CRASH_TEXT;
    if (file_length < 0) file_length = 0;
    if (function_length < 0) function_length = 0;
    slot->reducing = 0;
    slot->action_state = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (file_length > 0) memcpy(slot->file, file, (size_t)file_length);
    if (function_length > 0) memcpy(slot->function, function, (size_t)function_length);
    slot->file_length = (uint16_t)file_length;
    slot->function_length = (uint16_t)function_length;
    slot->line = line;
    slot->next_seq = slot->recorded_through + 1;
    slot->reduce_began_ns = wall_ns;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    slot->reducing = 1;
}

/// After the recorder took the action (`seq`, or -1 when it recorded nothing: paused).
static inline void rewind_crash_did_record(rewind_crash_slot *slot, int64_t seq) {
    if (seq >= 0) slot->recorded_through = seq;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    slot->reducing = 0;
}

#endif
