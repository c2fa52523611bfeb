import Foundation
import RewindJSON
import RewindLog
import RewindServer
import RewindWebSocket
import RewindWire
import Testing
import RewindTestSupport

/// Issue 25, item 2: `/export` streams. Each repro runs against a real server on 127.0.0.1 and
/// ends with the hostile-input health check (the server answers, a control app is acked, every
/// session verifies). One at a time: each streams tens of megabytes.
@Suite("Export streaming", .serialized, .ownThreads)
struct ExportStreamTests {
    static let window = HTTPBodyWriter.defaultWindow

    /// Stores a session whose state is a `stateBytes` string plus a number, then `events` events
    /// that each change the number: its JSONL export is about `events × stateBytes`, as in the
    /// issue's repro (a 1 MB state, one-number patches). Returns the session's id.
    static func bigSession(_ fixture: ServerFixture, stateBytes: Int, events: Int64) throws -> Int64 {
        let uuid = "big-" + UUID().uuidString
        let (app, next) = try fixture.helloApp(uuid)
        guard next == 0 else { throw FixtureError(description: "session \(uuid) is not new") }
        var state: JSONValue = ["blob": .string(String(repeating: "b", count: stateBytes)), "n": 0]
        app.send(AppMessage.event(WireEvent(seq: 0, at: 1_763_700_000, action: ["type": "@@INIT"], keyframe: state,
                                            hash: state.stableHash)).json)
        for seq in 1...events {
            let patch: JSONValue = [["op": "replace", "path": "/n", "value": .number(JSONNumber(seq))]]
            try state.apply(JSONPatch(json: patch))
            app.sendWaitingForRoom(AppMessage.event(WireEvent(seq: seq, at: 1_763_700_000 + Double(seq) / 1000,
                                                              action: ["type": "bump", "n": .number(JSONNumber(seq))],
                                                              patch: patch, hash: state.stableHash)).json)
        }
        guard app.waitForAck(events, timeout: 60) else { throw FixtureError(description: "session \(uuid) was not acked") }
        app.close()
        return try fixture.reader().session(named: uuid).id
    }

    /// What `rewind export` writes for the session.
    static func exported(_ fixture: ServerFixture, session: Int64, format: ImportFormat) throws -> [UInt8] {
        let reader = try fixture.reader()
        var bytes: [UInt8] = []
        try SessionExporter(reader: reader, session: try reader.session(id: session)).write(format) { bytes += $0 }
        return bytes
    }

    /// Sends `GET /export/…` on a socket that then reads nothing.
    static func stalledExport(_ fixture: ServerFixture, session: Int64) throws -> RawSocket {
        let socket = try RawSocket(port: fixture.port, receiveBuffer: 4096)
        try socket.write(Array("GET /export/\(session) HTTP/1.1\r\nHost: 127.0.0.1:\(fixture.port)\r\n\r\n".utf8))
        return socket
    }

    /// Closes `socket` with a reset, as a client that gives up with unread data does.
    static func hangUp(_ socket: RawSocket) {
        var reset = linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket.fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
    }

    @Test("a streamed export reads back byte-identical to the exporter, states larger than a chunk and files larger than the window",
          arguments: [ImportFormat.jsonl, .reduxDevTools])
    func byteIdentical(_ format: ImportFormat) throws {
        let fixture = try ServerFixture()
        let health = try HealthCheck(fixture)
        let session = try Self.bigSession(fixture, stateBytes: 300_000, events: 12)
        let result = try HTTPResult.get("/export/\(session)?format=\(format.rawValue)", port: fixture.port)
        #expect(result.status == 200)
        #expect(result.header("transfer-encoding") == "chunked")
        #expect(result.header("content-disposition")?.hasPrefix("attachment; filename=\"rewind-session-\(session).") == true)
        #expect(result.header("content-type") == (format == .jsonl ? "application/x-ndjson" : "application/json"))
        #expect(result.complete)
        let expected = try Self.exported(fixture, session: session, format: format)
        #expect(expected.count > 3_000_000)
        #expect(result.bodyBytes.count == expected.count)
        let same = result.bodyBytes == expected
        #expect(same, "the exported bytes differ from the exporter's")
        #expect(fixture.server.streamStatistics.peakBufferedBytes <= Self.window)
        #expect(waitUntil { fixture.server.activeExportCount == 0 })
        try health.expectHealthy()
    }

    @Test("a client that reads nothing holds at most the window; when it hangs up the export stops")
    func stalledThenGone() throws {
        let fixture = try ServerFixture()
        let health = try HealthCheck(fixture)
        let session = try Self.bigSession(fixture, stateBytes: 1 << 20, events: 40)
        do {
            let stalled = try Self.stalledExport(fixture, session: session)
            // The kernel's buffers fill, then the export's window, and the exporter waits.
            #expect(waitUntil(timeout: .seconds(60)) { fixture.server.streamStatistics.bufferedBytes >= Self.window / 2 })
            #expect(fixture.server.activeExportCount == 1)
            #expect(fixture.server.streamStatistics.activeProducers == 1)
            Self.hangUp(stalled)
        }
        #expect(waitUntil { fixture.server.activeExportCount == 0 }, "the export stops once its client is gone")
        #expect(waitUntil { fixture.server.streamStatistics.activeProducers == 0 })
        #expect(fixture.server.streamStatistics.bufferedBytes == 0)
        #expect(fixture.server.streamStatistics.peakBufferedBytes == Self.window)
        try health.expectHealthy()
    }

    @Test("a client that reads a little and leaves stops its export")
    func readsALittleThenLeaves() throws {
        let fixture = try ServerFixture()
        let health = try HealthCheck(fixture)
        let session = try Self.bigSession(fixture, stateBytes: 1 << 20, events: 40)
        do {
            let client = try RawSocket(port: fixture.port)
            try client.write(Array("GET /export/\(session) HTTP/1.1\r\nHost: 127.0.0.1:\(fixture.port)\r\n\r\n".utf8))
            let first = client.read(timeout: 30) { $0.count >= 3 << 20 }
            #expect(first.count >= 3 << 20)
            #expect(String(decoding: first.prefix(15), as: UTF8.self) == "HTTP/1.1 200 OK")
        }
        #expect(waitUntil { fixture.server.activeExportCount == 0 && fixture.server.streamStatistics.activeProducers == 0 })
        // Clients that hang up at once, before or while their session is looked up.
        for _ in 0..<5 {
            let client = try Self.stalledExport(fixture, session: session)
            Self.hangUp(client)
        }
        #expect(waitUntil { fixture.server.activeExportCount == 0 && fixture.server.streamStatistics.activeProducers == 0 })
        #expect(fixture.server.streamStatistics.peakBufferedBytes <= Self.window)
        try health.expectHealthy()
    }

    @Test("HEAD answers the headers, sends no body and builds nothing; an unknown session is still a 404")
    func head() throws {
        let fixture = try ServerFixture()
        let health = try HealthCheck(fixture)
        let session = try Self.bigSession(fixture, stateBytes: 1 << 20, events: 40)
        for format in ImportFormat.allCases {
            let socket = try RawSocket(port: fixture.port)
            try socket.write(Array("HEAD /export/\(session)?format=\(format.rawValue) HTTP/1.1\r\nHost: 127.0.0.1:\(fixture.port)\r\nConnection: close\r\n\r\n".utf8))
            let raw = socket.read(timeout: 30) { _ in false }
            let result = HTTPResult.parse(raw)
            #expect(result.status == 200)
            #expect(result.header("content-disposition")?.hasPrefix("attachment; filename=\"rewind-session-\(session).") == true)
            #expect(result.header("content-type") == (format == .jsonl ? "application/x-ndjson" : "application/json"))
            #expect(raw.count == result.head.utf8.count + 4, "no body after the head")
        }
        let unknown = try HTTPResult.get("/export/999", port: fixture.port, method: "HEAD")
        #expect(unknown.status == 404)
        let statistics = fixture.server.streamStatistics
        #expect(statistics.peakBufferedBytes == 0, "nothing was built")
        #expect(statistics.activeProducers == 0)
        #expect(fixture.server.activeExportCount == 0)
        try health.expectHealthy()
    }

    @Test("past two exports at once the next gets 503 with one sentence and Retry-After; once one ends, exports run again")
    func bounded() throws {
        let fixture = try ServerFixture()
        let health = try HealthCheck(fixture)
        let session = try Self.bigSession(fixture, stateBytes: 1 << 20, events: 40)
        do {
            let first = try Self.stalledExport(fixture, session: session)
            let second = try Self.stalledExport(fixture, session: session)
            #expect(waitUntil(timeout: .seconds(60)) { fixture.server.streamStatistics.bufferedBytes >= Self.window })
            #expect(fixture.server.activeExportCount == 2)

            let refused = try HTTPResult.get("/export/\(session)", port: fixture.port)
            #expect(refused.status == 503)
            #expect(refused.header("retry-after") == "5")
            #expect(refused.body.split(separator: "\n").count == 1)
            #expect(refused.body.contains("2 exports"))
            #expect(refused.header("content-disposition") == nil)
            // HEAD builds nothing, so it is not counted and still answers.
            #expect(try HTTPResult.get("/export/\(session)", port: fixture.port, method: "HEAD").status == 200)
            #expect(fixture.server.streamStatistics.peakBufferedBytes <= 2 * Self.window)
            Self.hangUp(first)
            Self.hangUp(second)
        }
        #expect(waitUntil { fixture.server.activeExportCount == 0 && fixture.server.streamStatistics.activeProducers == 0 })
        let again = try HTTPResult.get("/export/\(session)?format=redux-devtools", port: fixture.port)
        #expect(again.status == 200)
        #expect(again.bodyBytes == (try Self.exported(fixture, session: session, format: .reduxDevTools)))
        try health.expectHealthy()
    }

    @Test("a client that stops reading is dropped after the stall timeout and its export stops")
    func stallTimeout() throws {
        let fixture = try ServerFixture { $0.exportStallTimeout = .seconds(1) }
        let health = try HealthCheck(fixture)
        let session = try Self.bigSession(fixture, stateBytes: 1 << 20, events: 40)
        let stalled = try Self.stalledExport(fixture, session: session)
        #expect(waitUntil(timeout: .seconds(60)) { fixture.server.activeExportCount == 1 })
        #expect(waitUntil(timeout: .seconds(60)) { fixture.server.activeExportCount == 0 && fixture.server.streamStatistics.activeProducers == 0 },
                "the stalled export is dropped without its client doing anything")
        withExtendedLifetime(stalled) {}
        try health.expectHealthy()
    }

    @Test("a Redux DevTools export of a session without events is refused before any 200")
    func emptySessionForRedux() throws {
        let fixture = try ServerFixture()
        let health = try HealthCheck(fixture)
        let uuid = "empty-" + UUID().uuidString
        let (app, _) = try fixture.helloApp(uuid)
        let id = try #require(waitUntilSession(fixture, named: uuid))
        app.close()
        let result = try HTTPResult.get("/export/\(id)?format=redux-devtools", port: fixture.port)
        #expect(result.status == 500)
        #expect(result.body.contains("needs the init action"))
        #expect(result.body.split(separator: "\n").count == 1)
        #expect(fixture.server.activeExportCount == 0)
        try health.expectHealthy()
    }

    /// The id of the session `name` once the log has it.
    private func waitUntilSession(_ fixture: ServerFixture, named name: String) -> Int64? {
        var id: Int64?
        _ = waitUntil { id = try? fixture.reader().session(named: name).id; return id != nil }
        return id
    }
}
