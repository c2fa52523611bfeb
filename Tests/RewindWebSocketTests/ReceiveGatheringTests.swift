import RewindWebSocket
import Testing
import RewindTestSupport

/// `receiveGathering`: after a pass that read a little, the service thread waits before it reads
/// again, so that frames arriving meanwhile are read together; a pass that read a lot never waits.
@Suite("Receive gathering", .ownThreads)
struct ReceiveGatheringTests {
    /// Records when each message arrived, on the service thread.
    private final class ArrivalDelegate: WebSocketServerDelegate {
        struct Arrival: Sendable {
            let message: WebSocketMessage
            let at: ContinuousClock.Instant
        }

        let arrivals = Recorder([Arrival]())

        func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
            let now = ContinuousClock.now
            arrivals.update { $0.append(Arrival(message: message, at: now)) }
        }
    }

    /// A server gathering for `gathering`, and one client connected to it.
    private struct Running {
        let server: WebSocketServer
        let delegate: ArrivalDelegate
        let client: WebSocketClient

        func stop() {
            client.close()
            server.shutdown()
        }
    }

    /// A started server with Rewind's endpoints, gathering for `gathering`.
    private static func server(gathering: Duration, delegate: some WebSocketServerDelegate) throws -> WebSocketServer {
        var configuration = WebSocketServerConfiguration(endpoints: rewindEndpoints)
        configuration.receiveGathering = gathering
        let server = WebSocketServer(configuration: configuration, delegate: delegate)
        try server.start()
        return server
    }

    private static func start(gathering: Duration) throws -> Running {
        let delegate = ArrivalDelegate()
        let server = try server(gathering: gathering, delegate: delegate)
        let (client, clientDelegate) = try connectClient(port: try #require(server.port)) { configuration in
            configuration.queueLimits = WebSocketQueueLimits(maxMessages: 10_000, maxBytes: 64 << 20)
        }
        #expect(clientDelegate.waitForConnect())
        return Running(server: server, delegate: delegate, client: client)
    }

    @Test("a message sent while the server waits after a light pass is read when the wait ends")
    func lightPassWaits() throws {
        let running = try Self.start(gathering: .milliseconds(100))
        defer { running.stop() }
        let (delegate, client) = (running.delegate, running.client)
        for round in 0..<3 {
            #expect(client.send(text: "first \(round)") == .enqueued)
            try #require(delegate.arrivals.wait { $0.count == 2 * round + 1 })
            // The pass that read it is over or about to be: the server now waits 100 ms, and a
            // message sent now arrives after that wait, never sooner.
            #expect(client.send(text: "second \(round)") == .enqueued)
            try #require(delegate.arrivals.wait { $0.count == 2 * round + 2 })
            let arrivals = delegate.arrivals.value
            let gap = arrivals[2 * round + 1].at - arrivals[2 * round].at
            #expect(gap >= .milliseconds(75), "the second message came \(gap) after the first")
            // The next round's first message may come during the wait after this one's second:
            // it is then read when that wait ends, and its own pass starts a new wait.
        }
        #expect(delegate.arrivals.value.map(\.message) == (0..<3).flatMap { [.text(Array("first \($0)".utf8)), .text(Array("second \($0)".utf8))] })
    }

    @Test("a flood is read without waits: 8 MiB arrive long before one wait per 64 KiB read could end")
    func floodDoesNotWait() throws {
        let running = try Self.start(gathering: .milliseconds(100))
        defer { running.stop() }
        let (delegate, client) = (running.delegate, running.client)
        let count = 256
        let messages = (0..<count).map { index in
            WebSocketMessage.binary((0..<32_768).map { UInt8(truncatingIfNeeded: $0 &+ index) })
        }
        for message in messages { #expect(client.send(message) == .enqueued) }
        #expect(delegate.arrivals.wait(timeout: .seconds(60)) { $0.count == count })
        let arrivals = delegate.arrivals.value
        #expect(arrivals.map(\.message) == messages)
        // 8 MiB take at least 128 reads of 64 KiB; a 100 ms wait after each would take 12.8 s.
        // (Under the whole suite on 2 cores the flood once took 6.3 s without any wait.)
        let took = (arrivals.last?.at ?? .now) - (arrivals.first?.at ?? .now)
        #expect(took < .seconds(10), "the flood took \(took) to read")
    }

    /// Records what the service thread tells it, in order; at the end of each pass it answers
    /// every message of the pass with `echo:` and the message.
    private final class PassDelegate: WebSocketServerDelegate {
        enum Heard: Equatable, Sendable {
            case message(Int)
            case passEnded(readLittle: Bool)
        }

        let heard = Recorder([Heard]())
        /// When each message was delivered.
        let readAt = Recorder([ContinuousClock.Instant]())
        /// The messages of the current pass (service thread).
        private let pass = Recorder([(WebSocketConnection, WebSocketMessage)]())

        func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
            let now = ContinuousClock.now
            readAt.update { $0.append(now) }
            heard.update { $0.append(.message(message.bytes.count)) }
            pass.update { $0.append((connection, message)) }
        }

        func didFinishServicePass(readLittle: Bool) {
            heard.update { $0.append(.passEnded(readLittle: readLittle)) }
            let messages = pass.update { pass in
                defer { pass.removeAll() }
                return pass
            }
            for (connection, message) in messages where message.bytes.count < 1_024 {
                _ = connection.send(text: "echo: " + String(decoding: message.bytes, as: UTF8.self))
            }
        }
    }

    @Test("each pass that delivered messages ends with one call after them: a light one says it read little, a flood's does not")
    func passEnds() throws {
        let delegate = PassDelegate()
        let server = try Self.server(gathering: .milliseconds(1), delegate: delegate)
        defer { server.shutdown() }
        let port = try #require(server.port)
        let (client, clientDelegate) = try connectClient(port: port) { configuration in
            configuration.queueLimits = WebSocketQueueLimits(maxMessages: 10_000, maxBytes: 64 << 20)
        }
        defer { client.close() }
        #expect(clientDelegate.waitForConnect())
        #expect(client.send(text: "one") == .enqueued)
        try #require(delegate.heard.wait { $0.contains(.passEnded(readLittle: true)) })
        #expect(delegate.heard.value == [.message(3), .passEnded(readLittle: true)])
        // 4 MiB at once: passes that read 64 KiB each.
        for _ in 0..<128 { #expect(client.send(.binary([UInt8](repeating: 7, count: 32_768))) == .enqueued) }
        try #require(delegate.heard.wait(timeout: .seconds(60)) { heard in
            heard.filter { $0 == .message(32_768) }.count == 128 && heard.last.map { $0 != .message(32_768) } == true
        })
        let heard = delegate.heard.value
        #expect(heard.contains(.passEnded(readLittle: false)))
        // Never two ends in a row: a pass that delivered nothing is not reported.
        func isEnd(_ heard: PassDelegate.Heard) -> Bool { if case .passEnded = heard { true } else { false } }
        #expect(zip(heard, heard.dropFirst()).allSatisfy { !(isEnd($0.0) && isEnd($0.1)) })
    }

    @Test("what the delegate sends at the end of a light pass goes out before the server's wait, not after it")
    func passEndOutputBeforeWait() throws {
        let delegate = PassDelegate()
        let server = try Self.server(gathering: .milliseconds(100), delegate: delegate)
        defer { server.shutdown() }
        let port = try #require(server.port)
        let answers = AnswerTimes()
        let client = try WebSocketClient(configuration: WebSocketClientConfiguration(url: "ws://127.0.0.1:\(port)/app", subprotocol: "rewind.app.v1"))
        try client.connect(delegate: answers)
        defer { client.close() }
        try #require(answers.received.wait { $0.connected })
        // From the pass that read a ping to its answer: written after the wait, 100 ms or more
        // every time; written before it, a moment. The fastest of five leaves room for a loaded
        // machine.
        for round in 0..<5 {
            #expect(client.send(text: "ping \(round)") == .enqueued)
            try #require(answers.received.wait { $0.answers.count == round + 1 })
        }
        let read = delegate.readAt.value, answered = answers.received.value.answers
        #expect(answered.map(\.message) == (0..<5).map { .text(Array("echo: ping \($0)".utf8)) })
        try #require(read.count == 5)
        let fastest = zip(read, answered).map { $0.1.at - $0.0 }.min() ?? .seconds(60)
        #expect(fastest < .milliseconds(50), "the fastest answer left \(fastest) after its ping was read")
    }

    /// A client that notes when each message arrives, on its own thread.
    private final class AnswerTimes: WebSocketClientDelegate {
        struct Received: Sendable {
            var connected = false
            var answers: [(message: WebSocketMessage, at: ContinuousClock.Instant)] = []
        }

        let received = Recorder(Received())

        func didConnect(_ connection: WebSocketConnection) { received.update { $0.connected = true } }

        func didReceive(_ message: WebSocketMessage, from connection: WebSocketConnection) {
            let now = ContinuousClock.now
            received.update { $0.answers.append((message, now)) }
        }
    }

    @Test("receiveGathering outside 0...100 ms is refused before anything listens", arguments: [
        Duration.milliseconds(-1), .milliseconds(101), .seconds(5),
    ])
    func outOfRange(gathering: Duration) {
        var configuration = WebSocketServerConfiguration(endpoints: rewindEndpoints)
        configuration.receiveGathering = gathering
        let server = WebSocketServer(configuration: configuration, delegate: ArrivalDelegate())
        #expect(throws: WebSocketError.invalidConfiguration("receiveGathering must be between 0 and 100 ms")) { try server.start() }
        #expect(server.port == nil)
    }
}
