import Foundation
import Rewind

/// Wraps a sink and holds the recorder's thread in `begin` until ``open()``.
final class GateSink: SessionSink, @unchecked Sendable {
    private let inner: any SessionSink
    private let gate = DispatchSemaphore(value: 0)

    init(_ inner: any SessionSink) {
        self.inner = inner
    }

    func open() {
        gate.signal()
    }

    func begin(_ session: RecordingSession) throws {
        gate.wait()
        try inner.begin(session)
    }

    func write(_ events: [RecordedEvent], of session: RecordingSession) throws {
        try inner.write(events, of: session)
    }

    func flush() throws {
        try inner.flush()
    }

    func end(_ session: RecordingSession, at date: Date) throws {
        try inner.end(session, at: date)
    }
}
