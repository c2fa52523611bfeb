import Foundation

/// What commands that stop cleanly on SIGINT and SIGTERM do before they catch them.
enum Interrupts {
    /// Keeps SIGINT and SIGTERM pending in the calling thread and in every thread it starts later,
    /// until a dispatch signal source takes them.
    ///
    /// On Linux, libdispatch registers a signal source a moment after `resume()`; a signal that
    /// comes first, to a thread that does not block it, meets `SIG_IGN` and is dropped: a
    /// `rewind serve` interrupted right after it printed its address ran on (15 of 100 tries in
    /// a loop). A blocked signal is never dropped, and the source takes it once registered. Call
    /// it before starting threads. Not on Apple platforms: there the kqueue filter sees a signal
    /// only when it is delivered, which blocking would prevent (checked by reading only).
    static func holdUntilCaught() {
        #if os(Linux)
        var held = sigset_t()
        sigemptyset(&held)
        sigaddset(&held, SIGINT)
        sigaddset(&held, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &held, nil)
        #endif
    }
}
