/// Holds a deferred response's producer until the test opens it, and counts the producers that
/// started and finished, so a test can wait for either.
final class ProducerGate: Sendable {
    struct State: Sendable {
        var started = 0
        var finished = 0
        var released = false
    }

    let state = Recorder(State())

    /// Called by a producer: records the start, waits for ``release()`` (at most `timeout`, so a
    /// failed test cannot leave a thread behind for ever), records the end.
    func pass(timeout: Duration = .seconds(60)) {
        state.update { $0.started += 1 }
        _ = state.wait(timeout: timeout) { $0.released }
        state.update { $0.finished += 1 }
    }

    /// Lets every waiting and later producer through.
    func release() {
        state.update { $0.released = true }
    }
}
