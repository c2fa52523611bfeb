import Foundation

/// What a recorder's thread tells the app: its first error (written once to standard error)
/// and how many events held non-finite numbers.
final class RecorderStatus: @unchecked Sendable {
    private let lock = NSLock()
    private var error: RecorderError?
    private var nonFinite = 0
    private var printedEncodingError = false

    var lastError: RecorderError? { lock.withLock { error } }
    var nonFiniteCount: Int { lock.withLock { nonFinite } }

    /// Records `error`; the first fatal one, the first encoding one and tags left out are written to stderr.
    func report(_ error: RecorderError) {
        let shouldPrint: Bool = lock.withLock {
            let first: Bool
            if error.isEncodingSkip {
                first = !printedEncodingError
                printedEncodingError = true
                if self.error == nil { self.error = error }
            } else if error.isNonFatal {
                // Tags left out: said once, when the recorder starts.
                first = true
                if self.error == nil { self.error = error }
            } else {
                first = self.error?.isNonFatal ?? true
                self.error = error
            }
            return first
        }
        if shouldPrint {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
        }
    }

    func noteNonFinite() {
        lock.withLock { nonFinite += 1 }
    }
}
