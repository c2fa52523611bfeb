import Dispatch

/// Carries one synchronous call's result from the writer thread back to its caller.
final class CallResult<T: Sendable>: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    // Written once on the writer thread before `signal`, read after `wait`: the semaphore orders them.
    private var result: Result<T, LogError>?

    func fulfil(_ result: Result<T, LogError>) {
        self.result = result
        semaphore.signal()
    }

    func wait() -> Result<T, LogError> {
        semaphore.wait()
        return result!
    }
}
