import Foundation
import RewindSupport

/// What a recorder's thread tells the app: its first error (written once to standard error)
/// and how many events held non-finite numbers.
final class RecorderStatus: Sendable {
    private struct Reported {
        var error: RecorderError?
        var nonFinite = 0
        var printedEncodingError = false
    }

    private let reported = Mutex(Reported())

    var lastError: RecorderError? { reported.withLock { $0.error } }
    var nonFiniteCount: Int { reported.withLock { $0.nonFinite } }

    /// Records `error`; the first fatal one, the first encoding one and tags left out are written to stderr.
    func report(_ error: RecorderError) {
        let shouldPrint: Bool = reported.withLock { reported in
            let first: Bool
            if error.isEncodingSkip {
                first = !reported.printedEncodingError
                reported.printedEncodingError = true
                if reported.error == nil { reported.error = error }
            } else if error.isNonFatal {
                // Tags left out: said once, when the recorder starts.
                first = true
                if reported.error == nil { reported.error = error }
            } else {
                first = reported.error?.isNonFatal ?? true
                reported.error = error
            }
            return first
        }
        if shouldPrint {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
        }
    }

    func noteNonFinite() {
        reported.withLock { $0.nonFinite += 1 }
    }
}
