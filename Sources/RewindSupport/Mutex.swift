import Foundation

/// A value that only one thread at a time may touch: the one lock of the package.
///
/// The shape follows the standard library's `Synchronization.Mutex`, which needs iOS 18 and
/// macOS 15 where Rewind supports iOS 17 and macOS 14; when the floor moves, this type can give
/// way to it with no change at its call sites. It never waits for a condition: state that a
/// thread waits on is a ``Condition``.
package final class Mutex<Value>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the lock held. Keep it short and never call out to code that might take
    /// another lock in the opposite order.
    @inlinable
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension Mutex where Value == Void {
    package convenience init() {
        self.init(())
    }

    /// Runs `body` with the lock held, for a lock that orders work rather than guards a value.
    @inlinable
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
