import Foundation
import RewindLog
import RewindServer
import Testing
import RewindTestSupport

@Suite("Export route", .ownThreads)
struct ExportRouteTests {
    /// A server holding one streamed session of `count` events; returns it and the session id.
    static func streamed(_ count: Int64) throws -> (ServerFixture, Int64) {
        let fixture = try ServerFixture()
        let (app, _) = try fixture.helloApp(UUID().uuidString)
        var recording = Recording()
        for event in recording.events(0..<count) { app.send(event) }
        #expect(app.waitForAck(count - 1))
        app.close()
        let session = try fixture.reader().session(named: "latest").id
        return (fixture, session)
    }

    /// What `rewind export` writes: the same exporter over the same log.
    static func exported(_ fixture: ServerFixture, session: Int64, format: ImportFormat) throws -> String {
        let reader = try fixture.reader()
        var bytes: [UInt8] = []
        try SessionExporter(reader: reader, session: try reader.session(id: session)).write(format) { bytes += $0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("a download byte-identical to the exporter", arguments: [ImportFormat.jsonl, .reduxDevTools])
    func download(_ format: ImportFormat) throws {
        let (fixture, session) = try Self.streamed(25)
        let result = try HTTPResult.get("/export/\(session)?format=\(format.rawValue)", port: fixture.port)
        #expect(result.status == 200)
        #expect(result.header("content-disposition")?.hasPrefix("attachment; filename=") == true)
        // Which session it is, for `rewind test --server`: its id and its app, percent-encoded.
        #expect(result.header("x-rewind-session-id") == String(session))
        let app = try fixture.reader().session(id: session).app
        #expect(result.header("x-rewind-app")?.removingPercentEncoding == app)
        #expect(result.header("x-rewind-app")?.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "%") } == true)
        let expected = try Self.exported(fixture, session: session, format: format)
        #expect(!expected.isEmpty)
        #expect(result.body == expected)
    }

    @Test("without a format, JSONL for a streamed session; sessions by name too")
    func defaultFormat() throws {
        let (fixture, session) = try Self.streamed(5)
        let result = try HTTPResult.get("/export/latest", port: fixture.port)
        #expect(result.status == 200)
        #expect(result.body == (try Self.exported(fixture, session: session, format: .jsonl)))
        #expect(result.body.split(separator: "\n").count == 5)
    }

    @Test("an unknown session is a 404 that says so")
    func unknownSession() throws {
        let (fixture, _) = try Self.streamed(3)
        let result = try HTTPResult.get("/export/999?format=jsonl", port: fixture.port)
        #expect(result.status == 404)
        #expect(result.body.contains("999"))
        #expect(result.body.split(separator: "\n").count == 1)
        #expect(result.header("content-disposition") == nil)
    }

    @Test("a bad format is a 400 naming the formats")
    func badFormat() throws {
        let (fixture, session) = try Self.streamed(3)
        let result = try HTTPResult.get("/export/\(session)?format=csv", port: fixture.port)
        #expect(result.status == 400)
        #expect(result.body.contains("'csv'"))
        #expect(result.body.contains("redux-devtools"))
    }

    @Test("with a token, an export without it is refused")
    func token() throws {
        let fixture = try ServerFixture { $0.token = "s3cret" }
        #expect(try HTTPResult.get("/export/latest", port: fixture.port).status == 401)
        #expect(try HTTPResult.get("/export/latest", port: fixture.port, headers: ["Cookie: rewind_token=s3cret"]).status == 404)
    }
}
