import Foundation
import RewindSupport

/// Where the producer of a ``HTTPResponse/streamed(status:contentType:headers:window:stallTimeout:body:)``
/// response writes its body, on the producer's own thread.
///
/// The bytes wait in a buffer of at most ``window`` bytes until the service thread sends them.
/// ``write(_:)`` blocks while the buffer is full, so a client that reads slowly slows the
/// producer down, and one that reads nothing holds at most the window. Once the connection is
/// gone (the client hung up, it stalled past the stall timeout, the server is shutting down),
/// ``write(_:)`` throws ``Closed`` and the producer should stop.
///
/// ```swift
/// .streamed(contentType: "application/x-ndjson") { writer in
///     for line in lines { try writer.write(line) }   // throws HTTPBodyWriter.Closed once the client left
/// }
/// ```
public final class HTTPBodyWriter: @unchecked Sendable {
    /// Thrown by ``write(_:)`` once the connection is gone; nothing written afterwards is sent.
    public struct Closed: Error, Sendable, CustomStringConvertible {
        public var description: String { "the connection of this response is closed" }
    }

    /// The default ``window``: 1 MiB.
    public static let defaultWindow = 1 << 20

    /// The most bytes that wait to be sent at any time.
    public let window: Int

    private struct State {
        var chunks: RingQueue<[UInt8]> = []
        /// How far the service thread has sent `chunks[0]`.
        var headOffset = 0
        var buffered = 0
        var producerWaiting = false
        /// The service thread found nothing to send and waits to be told (starts true: no data yet).
        var serviceWaiting = true
        var finished = false
        var failed = false
        var closed = false
    }

    /// Only the producer waits here (for room), so only a change that makes room, or closes
    /// the connection, wakes anyone.
    private let state = Condition(State())
    private let announce: @Sendable () -> Void
    private let meter: HTTPStreamMeter?

    /// `announce` tells the service thread that data (or the end) waits; it is called under this
    /// writer's lock and must not call back into it.
    init(window: Int, meter: HTTPStreamMeter?, announce: @escaping @Sendable () -> Void) {
        self.window = max(1, window)
        self.meter = meter
        self.announce = announce
    }

    /// Queues `bytes` for sending, waiting while ``window`` bytes already wait. Bytes larger than
    /// the window go in pieces, each once there is room.
    ///
    /// - Throws: ``Closed`` once the connection is gone.
    public func write(_ bytes: [UInt8]) throws(Closed) {
        guard !bytes.isEmpty else { return }
        let window = window
        var offset = 0
        while offset < bytes.count {
            let full = state.withLock { state -> Bool? in
                guard !state.closed else { return nil }
                if state.buffered >= window {
                    state.producerWaiting = true
                    return true
                }
                let room = window - state.buffered
                let count: Int
                if offset == 0 && bytes.count <= room {
                    count = bytes.count
                    state.chunks.append(bytes)  // shared, not copied
                } else {
                    count = min(room, bytes.count - offset)
                    state.chunks.append(Array(bytes[offset..<(offset + count)]))
                }
                offset += count
                state.buffered += count
                meter?.add(count)
                wakeService(&state)
                return false
            }
            guard let full else { throw Closed() }
            if full {
                // Wait until half the window has gone out, so the producer wakes once per half
                // window rather than once per chunk the service thread sends.
                _ = state.wait(for: { $0.buffered <= window / 2 || $0.closed })
            }
        }
    }

    /// Whether the connection is gone (writes would throw).
    public var isClosed: Bool {
        state.withLock { $0.closed }
    }

    // MARK: Engine side

    /// The producer returned: what is buffered is the rest of the body.
    func finish() {
        state.withLock { state in
            state.finished = true
            wakeService(&state)
        }
    }

    /// The producer threw: the body is cut off (the connection is closed without its end).
    func fail() {
        state.withLock { state in
            state.failed = true
            wakeService(&state)
        }
    }

    /// The connection is gone: drops what is buffered and wakes a waiting producer, whose
    /// writes now throw.
    func close() {
        state.update(waking: .all) { state in
            guard !state.closed else { return }
            state.closed = true
            meter?.remove(state.buffered)
            state.chunks.removeAll()
            state.headOffset = 0
            state.buffered = 0
        }
    }

    /// What ``take(upTo:into:)`` found after taking.
    enum Next: Equatable {
        /// More bytes wait.
        case more
        /// Nothing waits yet; the writer announces the next bytes.
        case waiting
        /// The body is complete with what was taken.
        case ended
        /// The producer failed, or the connection is closed: cut the response off.
        case failed
    }

    /// Copies up to `limit` waiting bytes to `destination` (service thread); returns how many and
    /// what comes next. A failure is reported at once, even with bytes waiting.
    func take(upTo limit: Int, into destination: UnsafeMutablePointer<UInt8>) -> (count: Int, next: Next) {
        let window = window
        return state.update { state, waking in
            guard !state.failed, !state.closed else { return (0, .failed) }
            var count = 0
            while count < limit, let head = state.chunks.first {
                let n = min(limit - count, head.count - state.headOffset)
                head.withUnsafeBufferPointer { source in
                    (destination + count).update(from: source.baseAddress! + state.headOffset, count: n)
                }
                count += n
                state.headOffset += n
                if state.headOffset == head.count {
                    state.chunks.popFirst()
                    state.headOffset = 0
                }
            }
            state.buffered -= count
            meter?.remove(count)
            if state.producerWaiting && state.buffered <= window / 2 {
                state.producerWaiting = false
                waking = .all
            }
            if state.buffered > 0 { return (count, .more) }
            if state.finished { return (count, .ended) }
            state.serviceWaiting = true
            return (count, .waiting)
        }
    }

    /// Bytes waiting to be sent.
    var bufferedByteCount: Int {
        state.withLock { $0.buffered }
    }

    /// With the lock held: tells the service thread, once, that something waits.
    private func wakeService(_ state: inout State) {
        guard state.serviceWaiting else { return }
        state.serviceWaiting = false
        announce()
    }
}

/// What the streamed HTTP responses of one server hold, for monitoring and tests.
public struct HTTPStreamStatistics: Sendable, Hashable {
    /// Streamed responses whose producer is still running.
    public var activeProducers: Int
    /// Bytes of streamed bodies waiting to be sent, across connections.
    public var bufferedBytes: Int
    /// The most ``bufferedBytes`` has been since the server started.
    public var peakBufferedBytes: Int

    /// Statistics with these counts (all zero by default: nothing streamed).
    public init(activeProducers: Int = 0, bufferedBytes: Int = 0, peakBufferedBytes: Int = 0) {
        self.activeProducers = activeProducers
        self.bufferedBytes = bufferedBytes
        self.peakBufferedBytes = peakBufferedBytes
    }
}

/// Counts across a server's streamed responses.
final class HTTPStreamMeter: @unchecked Sendable {
    private let state = Mutex(HTTPStreamStatistics(activeProducers: 0, bufferedBytes: 0, peakBufferedBytes: 0))

    var statistics: HTTPStreamStatistics { state.withLock { $0 } }

    func add(_ bytes: Int) {
        state.withLock {
            $0.bufferedBytes += bytes
            $0.peakBufferedBytes = max($0.peakBufferedBytes, $0.bufferedBytes)
        }
    }

    func remove(_ bytes: Int) {
        guard bytes > 0 else { return }
        state.withLock { $0.bufferedBytes -= bytes }
    }

    func producerStarted() { state.withLock { $0.activeProducers += 1 } }
    func producerEnded() { state.withLock { $0.activeProducers -= 1 } }
}
