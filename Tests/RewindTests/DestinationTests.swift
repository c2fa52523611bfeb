import Foundation
import RewindLog
import Testing
@testable import RewindRecorder

/// Where a recording goes when the code names no destination.
@Suite("Default destinations")
struct DestinationTests {
    @Test("the default log on each platform: Linux's XDG place, macOS's and an iOS app's Application Support")
    func defaultLogPerPlatform() {
        let home = ["HOME": "/Users/ada", "XDG_DATA_HOME": "/data"]
        #expect(DefaultLog.path(environment: home, platform: .linux) == "/data/rewind/rewind.db")
        #expect(DefaultLog.path(environment: ["HOME": "/home/ada"], platform: .linux) == "/home/ada/.local/share/rewind/rewind.db")
        #expect(DefaultLog.path(environment: home, platform: .macOS) == "/Users/ada/Library/Application Support/Rewind/rewind.db")
        let container = ["HOME": "/var/mobile/Containers/Data/Application/0A1B"]
        #expect(DefaultLog.path(environment: container, platform: .appContainer)
            == "/var/mobile/Containers/Data/Application/0A1B/Library/Application Support/Rewind/rewind.db")
        for platform in DefaultLog.Platform.allCases {
            #expect(DefaultLog.path(environment: ["REWIND_DB": "/x/r.db", "HOME": "/h"], platform: platform) == "/x/r.db")
        }
        // A relative XDG_DATA_HOME is ignored, as the XDG spec says.
        #expect(DefaultLog.path(environment: ["HOME": "/h", "XDG_DATA_HOME": "data"], platform: .linux) == "/h/.local/share/rewind/rewind.db")
        #expect(DefaultLog.Platform.current == .linux)
    }

    @Test("REWIND_SERVER: ws URLs are taken (port 7433 when none), with REWIND_TOKEN; unset or empty means none")
    func serverFromEnvironment() throws {
        #expect(try RecordingDestination.server(fromEnvironment: [:]).get() == nil)
        #expect(try RecordingDestination.server(fromEnvironment: ["REWIND_SERVER": ""]).get() == nil)
        let lan = try #require(try RecordingDestination.server(fromEnvironment: [
            "REWIND_SERVER": "ws://192.168.1.20:7433/app", "REWIND_TOKEN": "t0k",
        ]).get())
        #expect(lan.url.absoluteString == "ws://192.168.1.20:7433/app")
        #expect(lan.token == "t0k")
        let bare = try #require(try RecordingDestination.server(fromEnvironment: ["REWIND_SERVER": "ws://studio.local"]).get())
        #expect(bare.url.absoluteString == "ws://studio.local:7433")
        #expect(bare.token == nil)
    }

    @Test("a malformed REWIND_SERVER is one sentence naming the variable and what to write",
          arguments: [
              ("http://127.0.0.1:7433/app", "is an http URL, and the recorder needs the WebSocket address"),
              ("https://mac.local/app", "is an https URL, and the recorder needs the WebSocket address"),
              ("wss://192.168.1.20:7433/app", "asks for TLS (wss), which rewind serve does not speak"),
              ("ws://", "names no host"),
              ("ftp://mac.local", "has the scheme ftp, not ws"),
              ("127.0.0.1:7433", "has no ws:// in front"),
              ("not a url at all", "has no ws:// in front"),
              ("ws://bad host/app", "is not a URL"),
          ])
    func malformedServer(value: String, why: String) {
        let result = RecordingDestination.server(fromEnvironment: ["REWIND_SERVER": value])
        #expect(result == .failure(EnvironmentProblem(
            message: "REWIND_SERVER=\(value) \(why); write ws://HOST:7433/app, as `rewind serve` prints it")))
    }

    @Test("automatic: a server sink for REWIND_SERVER, else the default log; a malformed one is reported and falls back")
    func automaticSinks() throws {
        let reports = Reports()
        let streaming = RecordingDestination.automatic.makeSinks(
            queueCapacity: 8, environment: ["REWIND_SERVER": "ws://127.0.0.1:7433/app", "REWIND_TOKEN": "x"],
            report: { reports.append($0) })
        let sink = try #require(streaming.first as? ServerSink)
        #expect(streaming.count == 1)
        #expect(sink.url.absoluteString == "ws://127.0.0.1:7433/app")
        #expect(sink.capacity == 8)
        #expect(reports.all.isEmpty)

        let local = RecordingDestination.automatic.makeSinks(queueCapacity: 8, environment: ["REWIND_DB": "/tmp/r.db"],
                                                             report: { reports.append($0) })
        #expect((local.first as? LogFileSink)?.path == "/tmp/r.db")
        #expect(reports.all.isEmpty)

        let fallback = RecordingDestination.automatic.makeSinks(
            queueCapacity: 8, environment: ["REWIND_SERVER": "http://127.0.0.1:7433", "REWIND_DB": "/tmp/r.db"],
            report: { reports.append($0) })
        #expect((fallback.first as? LogFileSink)?.path == "/tmp/r.db")
        #expect(reports.all == ["REWIND_SERVER=http://127.0.0.1:7433 is an http URL, and the recorder needs the WebSocket address; write ws://HOST:7433/app, as `rewind serve` prints it; recording to /tmp/r.db instead"])
    }
}
