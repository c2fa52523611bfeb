import Foundation
import RewindSupport

/// Hands out process-wide unique connection numbers.
enum ConnectionID {
    private static let counter = Mutex<UInt64>(0)

    static func next() -> UInt64 {
        counter.withLock { value in
            value += 1
            return value
        }
    }
}
