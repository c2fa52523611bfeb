import Foundation

/// Runs blocking `work` (a wait on a sink, a child process, a socket) on a thread of its own and
/// returns what it returns, holding no thread of Swift's shared pool meanwhile.
///
/// `Task.detached { work() }.value` runs `work` on the shared pool, which has one thread a core
/// (two here): two tests blocked that way for their whole deadline (up to two minutes) held all
/// of it, and every other test's detached task, the code under test's own tasks (a recorder's
/// replay command) and `Task.sleep` wakes waited. A full run failed three different tests that way.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        startThread(named: "test-blocking-wait") { continuation.resume(returning: work()) }
    }
}

/// ``onOwnThread(_:)`` for work that throws.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        startThread(named: "test-blocking-wait") { continuation.resume(with: Result { try work() }) }
    }
}
