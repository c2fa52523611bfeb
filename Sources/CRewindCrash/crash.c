#include "CRewindCrash.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#define REWIND_CRASH_SLOTS 64

static rewind_crash_slot *volatile watched[REWIND_CRASH_SLOTS];
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP, SIGFPE};
#define CRASH_SIGNAL_COUNT ((int)(sizeof(crash_signals) / sizeof(crash_signals[0])))
static struct sigaction previous[CRASH_SIGNAL_COUNT];
static volatile sig_atomic_t installed = 0;
static volatile sig_atomic_t handling = 0;
static volatile int wake_fd = -1;

void rewind_crash_set_wake(int fd) { wake_fd = fd; }

static int signal_index(int sig) {
    for (int i = 0; i < CRASH_SIGNAL_COUNT; i++) {
        if (crash_signals[i] == sig) return i;
    }
    return -1;
}

/// Only async-signal-safe calls: clock_gettime, write, nanosleep, sigaction, raise. Writes the signal into every
/// watched slot (once: a crash inside this handler skips straight to the chaining), puts back
/// the handler it replaced and hands the signal on, so the app dies as it would have (or a
/// crash reporter installed before sees it).
static void rewind_crash_handler(int sig, siginfo_t *info, void *context) {
    if (!handling) {
        handling = 1;
        struct timespec now;
        int64_t at = 0;
        if (clock_gettime(CLOCK_REALTIME, &now) == 0) at = (int64_t)now.tv_sec * 1000000000 + (int64_t)now.tv_nsec;
        for (int i = 0; i < REWIND_CRASH_SLOTS; i++) {
            rewind_crash_slot *slot = watched[i];
            if (slot == 0) continue;
            slot->signal_at_ns = at;
            __atomic_signal_fence(__ATOMIC_SEQ_CST);
            slot->signal = sig;
        }
        // Rewind's watcher thread writes the action being reduced (it may encode; this may not).
        int wake = wake_fd;
        if (wake >= 0) {
            char byte = 1;
            ssize_t written = write(wake, &byte, 1);
            (void)written;
        }
        // The recorder's thread and the log's writer run on while this thread waits: what the
        // recorder was handed before the crash gets committed, within a bound (a crash that
        // holds a lock they need makes this wait its whole bound, then the app dies as it would).
        struct timespec start;
        if (clock_gettime(CLOCK_MONOTONIC, &start) == 0) {
            for (;;) {
                int behind = 0;
                for (int i = 0; i < REWIND_CRASH_SLOTS; i++) {
                    rewind_crash_slot *slot = watched[i];
                    if (slot == 0) continue;
                    if (slot->committed_through < slot->recorded_through) behind = 1;
                    if (wake >= 0 && slot->reducing && slot->action_state == 0) behind = 1;
                }
                if (!behind) break;
                struct timespec now_mono;
                if (clock_gettime(CLOCK_MONOTONIC, &now_mono) != 0) break;
                int64_t waited = ((int64_t)now_mono.tv_sec - (int64_t)start.tv_sec) * 1000000000 + ((int64_t)now_mono.tv_nsec - (int64_t)start.tv_nsec);
                if (waited >= REWIND_CRASH_WAIT_NS) break;
                struct timespec pause = {0, 1000000};
                nanosleep(&pause, 0);
            }
        }
    }
    int index = signal_index(sig);
    if (index < 0) return;
    struct sigaction before = previous[index];
    sigaction(sig, &before, 0);
    if ((before.sa_flags & SA_SIGINFO) && before.sa_sigaction != 0) {
        before.sa_sigaction(sig, info, context);
        return;
    }
    if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN && before.sa_handler != 0) {
        before.sa_handler(sig);
        return;
    }
    // The default (or ignored) disposition is back. A fault from an instruction happens again
    // when this returns, and now kills; a signal sent by a process (abort's, kill's) is sent
    // again, delivered when this returns.
    if (info == 0 || info->si_code <= 0) raise(sig);
}

int rewind_crash_watch(rewind_crash_slot *slot) {
    int placed = -1;
    for (int i = 0; i < REWIND_CRASH_SLOTS; i++) {
        rewind_crash_slot *expected = 0;
        if (__atomic_compare_exchange_n(&watched[i], &expected, slot, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            placed = i;
            break;
        }
    }
    if (placed < 0) return -1;
    if (__atomic_exchange_n(&installed, 1, __ATOMIC_SEQ_CST) == 0) {
        for (int i = 0; i < CRASH_SIGNAL_COUNT; i++) {
            struct sigaction action;
            memset(&action, 0, sizeof(action));
            action.sa_sigaction = rewind_crash_handler;
            action.sa_flags = SA_SIGINFO | SA_ONSTACK;
            sigemptyset(&action.sa_mask);
            sigaction(crash_signals[i], &action, &previous[i]);
        }
    }
    return 0;
}

void rewind_crash_unwatch(rewind_crash_slot *slot) {
    for (int i = 0; i < REWIND_CRASH_SLOTS; i++) {
        rewind_crash_slot *expected = slot;
        __atomic_compare_exchange_n(&watched[i], &expected, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
}
