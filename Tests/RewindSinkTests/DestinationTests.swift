import Foundation
import RewindLog
import Testing
@testable import RewindRecorder
import RewindTestSupport
@testable import RewindAppTestSupport

/// Where a recording goes when the code names no destination.
@Suite("Default destinations", .ownThreads)
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

    @Test("the app container's folder is made and marked for exclusion from backup by the same code on every platform")
    func containerFolderIsPrepared() throws {
        let directory = try TemporaryDirectory()
        for platform in DefaultLog.Platform.allCases {
            let path = directory.path("\(platform)/Library/Application Support/Rewind/rewind.db")
            try DefaultLog.prepareFolder(for: path, platform: platform)
            var isFolder: ObjCBool = false
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            #expect(FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue, "\(platform)")
        }
        // A file where the folder should be is an error, not a silent success.
        let blocked = directory.path("file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocked))
        #expect(throws: (any Error).self) { try DefaultLog.prepareFolder(for: blocked + "/rewind.db", platform: .appContainer) }
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
              ("ws://", "names no host"),
              ("ftp://mac.local", "has the scheme ftp, not ws or wss"),
              ("127.0.0.1:7433", "has no ws:// in front"),
              ("not a url at all", "has no ws:// in front"),
              ("ws://bad host/app", "is not a URL"),
          ])
    func malformedServer(value: String, why: String) {
        let result = RecordingDestination.server(fromEnvironment: ["REWIND_SERVER": value])
        #expect(result == .failure(ServerSettingsError(
            message: "REWIND_SERVER=\(value) \(why); write ws://HOST:7433/app (wss:// with TLS), as `rewind serve` prints it")))
    }

    @Test("REWIND_SERVER lists servers separated by commas: each with its port, in order, spaces around them ignored; one token and one CA file for all")
    func serverListFromEnvironment() throws {
        let team = try #require(try RecordingDestination.server(fromEnvironment: [
            "REWIND_SERVER": "ws://10.0.0.5:7433/app, ws://10.0.0.6 ,ws://team-c.local:9000", "REWIND_TOKEN": "t",
        ]).get())
        #expect(team.urls.map(\.absoluteString) == ["ws://10.0.0.5:7433/app", "ws://10.0.0.6:7433", "ws://team-c.local:9000"])
        #expect(team.url == team.urls[0])
        #expect(team.token == "t")
        let sinks = RecordingDestination.automatic.makeSinks(
            queueCapacity: 8, environment: ["REWIND_SERVER": "ws://10.0.0.5:7433/app,ws://10.0.0.6", "REWIND_OUTBOX": "/tmp/rewind-outbox"],
            report: { Issue.record("reported: \($0)") })
        let sink = try #require(sinks.first as? ServerSink)
        #expect(sink.servers.map(\.absoluteString) == ["ws://10.0.0.5:7433/app", "ws://10.0.0.6:7433/app"])
        #expect(sink.url == sink.servers[0])
        #expect(sink.caFile == nil)

        // A list may mix wss and ws; the token (the app token here) and the CA file are every server's.
        let secure = [
            "REWIND_SERVER": "wss://a.team.example/app,ws://10.0.0.6", "REWIND_APP_TOKEN": "app",
            "REWIND_CA_FILE": "/etc/team-ca.pem", "REWIND_OUTBOX": "/tmp/rewind-outbox",
        ]
        let teamTLS = try #require(try RecordingDestination.server(fromEnvironment: secure).get())
        #expect(teamTLS.urls.map(\.absoluteString) == ["wss://a.team.example:7433/app", "ws://10.0.0.6:7433"])
        #expect(teamTLS.token == "app")
        #expect(teamTLS.caFile == "/etc/team-ca.pem")
        let secureSink = try #require(RecordingDestination.automatic.makeSinks(queueCapacity: 8, environment: secure,
                                                                               report: { Issue.record("reported: \($0)") }).first as? ServerSink)
        #expect(secureSink.servers.map(\.absoluteString) == ["wss://a.team.example:7433/app", "ws://10.0.0.6:7433/app"])
        #expect(secureSink.caFile == "/etc/team-ca.pem")
    }

    @Test("a wrong entry in a REWIND_SERVER list is one sentence naming its position",
          arguments: [
              ("ws://a.local,http://b.local:7433/app",
               "REWIND_SERVER's server 2 of 2, http://b.local:7433/app, is an http URL, and the recorder needs the WebSocket address; write ws://HOST:7433/app (wss:// with TLS), as `rewind serve` prints it, and separate servers with commas"),
              ("ftp://a.local,ws://b.local",
               "REWIND_SERVER's server 1 of 2, ftp://a.local, has the scheme ftp, not ws or wss; write ws://HOST:7433/app (wss:// with TLS), as `rewind serve` prints it, and separate servers with commas"),
              ("ws://a.local,,ws://b.local",
               "REWIND_SERVER's server 2 of 3 is empty (ws://a.local,,ws://b.local); write ws://HOST:7433/app for each, separated by single commas"),
              ("ws://a.local,",
               "REWIND_SERVER's server 2 of 2 is empty (ws://a.local,); write ws://HOST:7433/app for each, separated by single commas"),
              ("ws://a.local, b.local:7433",
               "REWIND_SERVER's server 2 of 2, b.local:7433, has no ws:// in front; write ws://HOST:7433/app (wss:// with TLS), as `rewind serve` prints it, and separate servers with commas"),
              ("ws://a.local:7433/app,ws://A.LOCAL",
               "REWIND_SERVER's server 2 of 2, ws://A.LOCAL, is server 1 again (ws://a.local:7433/app,ws://A.LOCAL); name each server once"),
              ("ws://a.local,ws://b.local/inspect",
               "REWIND_SERVER's server 2 of 2: ws://b.local:7433/inspect names the path /inspect; apps connect to /app; write ws://HOST:PORT/app, the address `rewind serve` prints for apps"),
          ])
    func malformedServerList(value: String, sentence: String) {
        #expect(RecordingDestination.server(fromEnvironment: ["REWIND_SERVER": value]) == .failure(ServerSettingsError(message: sentence)))
    }

    @Test(".server(url) takes REWIND_TOKEN (else REWIND_APP_TOKEN) as .automatic does, unless the code or the address gives one")
    func serverTakesTheEnvironmentsToken() throws {
        let url = URL(string: "ws://10.0.0.5:7433/app")!
        func tokens(_ destination: RecordingDestination, _ environment: [String: String]) throws -> [String?] {
            let sinks = destination.makeSinks(queueCapacity: 8, environment: environment.merging(["REWIND_OUTBOX": "/tmp/rewind-outbox"]) { a, _ in a },
                                              report: { Issue.record("reported: \($0)") })
            return try #require(sinks.first as? ServerSink).tokens
        }
        #expect(try tokens(.server(url), ["REWIND_TOKEN": "env", "REWIND_APP_TOKEN": "app"]) == ["env"])
        #expect(try tokens(.server(url), ["REWIND_APP_TOKEN": "app"]) == ["app"])
        #expect(try tokens(.server(url), ["REWIND_TOKEN": ""]) == [nil])
        #expect(try tokens(.server(url, token: "code"), ["REWIND_TOKEN": "env"]) == ["code"])
        #expect(try tokens(.server(URL(string: "http://10.0.0.5:7433/?token=page")!), ["REWIND_TOKEN": "env"]) == ["page"])
        #expect(try tokens(.servers([url, URL(string: "ws://10.0.0.6:7433/app")!]), ["REWIND_APP_TOKEN": "app"]) == ["app", "app"])
    }

    @Test(".servers: a sink with every server in order; an empty list, a wrong entry or a repeated server is reported and falls back")
    func serversDestination() throws {
        let reports = Reports()
        let environment = ["REWIND_DB": "/tmp/r.db", "REWIND_OUTBOX": "/tmp/rewind-outbox"]
        let a = URL(string: "ws://10.0.0.5:7433")!
        let b = URL(string: "http://10.0.0.6:7433/?token=abc")!
        let sinks = RecordingDestination.servers([a, b], token: nil).makeSinks(queueCapacity: 8, environment: environment,
                                                                              report: { reports.append($0) })
        let sink = try #require(sinks.first as? ServerSink)
        #expect(sink.servers.map(\.absoluteString) == ["ws://10.0.0.5:7433/app", "ws://10.0.0.6:7433/app"])
        #expect(sink.keepsLocalLog)
        #expect(reports.all.isEmpty)

        for (urls, sentence) in [
            ([URL](), "the list of servers is empty; name at least one, ws://HOST:PORT/app as `rewind serve` prints it"),
            ([a, URL(string: "wss://10.0.0.6/inspect")!],
             "server 2 of 2: wss://10.0.0.6/inspect names the path /inspect; apps connect to /app; write ws://HOST:PORT/app, the address `rewind serve` prints for apps"),
            ([a, URL(string: "ws://10.0.0.5:7433/app")!], "server 2 of 2, ws://10.0.0.5:7433/app, is server 1 again; name each server once"),
        ] {
            let before = reports.all.count
            let fallback = RecordingDestination.servers(urls).makeSinks(queueCapacity: 8, environment: environment,
                                                                        report: { reports.append($0) })
            #expect((fallback.first as? LogFileSink)?.path == "/tmp/r.db")
            #expect(reports.all.dropFirst(before) == ["\(sentence); recording to /tmp/r.db instead"])
        }
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
        #expect(reports.all == ["REWIND_SERVER=http://127.0.0.1:7433 is an http URL, and the recorder needs the WebSocket address; write ws://HOST:7433/app (wss:// with TLS), as `rewind serve` prints it; recording to /tmp/r.db instead"])
    }
}

/// `.file(path)`: what cannot be a log gets its own sentence; `~` and missing folders just work.
@Suite("Log file paths", .ownThreads)
struct LogFilePathTests {
    /// Records two actions to `.file(path)` and returns why the recording stopped, if it did.
    func record(to path: String) -> String? {
        let recorder = Recorder<AppState, AppAction>(initialState: AppState(), to: .file(path),
                                                     metadata: RecordingMetadata(app: "Todos"))
        recorder.record(.increment, state: { var s = AppState(); s.count = 1; return s }())
        recorder.record(.increment, state: { var s = AppState(); s.count = 2; return s }())
        recorder.stop()
        return recorder.lastError?.description
    }

    @Test("missing folders are made and ~ is the home folder; the session is all there")
    func foldersAndTilde() throws {
        let directory = try TemporaryDirectory()
        let nested = directory.path("a/b/c/app.db")
        #expect(record(to: nested) == nil)
        #expect(try LogReader(path: nested).session(named: "latest").lastSeq == 2)

        let name = "rewind-tilde-\(UUID().uuidString).db"
        let home = NSHomeDirectory()
        defer { try? FileManager.default.removeItem(atPath: home + "/" + name) }
        #expect(LogFileSink(path: "~/" + name).path == home + "/" + name)
        #expect(record(to: "~/" + name) == nil)
        #expect(try LogReader(path: home + "/" + name).session(named: "latest").lastSeq == 2)
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/~/" + name))
    }

    @Test("a folder, a file in the way of the folder, and an unwritable place each get their own sentence")
    func problems() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.path("logs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(record(to: folder) == "rewind: recording stopped: \(folder) is a folder, not a log file; name a file in it, such as \(folder)/rewind.db")

        let file = directory.path("notes.txt")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect(record(to: file + "/app.db") == "rewind: recording stopped: cannot create the log file \(file)/app.db: \(file) is a file, not a folder")
        #expect(record(to: file + "/deeper/app.db") == "rewind: recording stopped: cannot create the folder \(file)/deeper for the log file \(file)/deeper/app.db: \(file) is a file, not a folder")

        // Not even root may create a file in /proc.
        #if os(Linux)
        let proc = "/proc/rewind-\(UUID().uuidString).db"
        let stopped = try #require(record(to: proc))
        #expect(stopped.hasPrefix("rewind: recording stopped: cannot create the log file \(proc): "), "\(stopped)")
        #expect(!stopped.contains("does not exist"), "\(stopped)")
        #endif

        // A file that is not a Rewind log is left alone, with the log's own sentence.
        let other = directory.path("other.db")
        try Data("not sqlite at all, just text that is long enough to be read as a header".utf8).write(to: URL(fileURLWithPath: other))
        let refused = try #require(record(to: other))
        #expect(refused.hasPrefix("rewind: recording stopped: "))
        #expect(try String(contentsOfFile: other, encoding: .utf8).hasPrefix("not sqlite at all"))
    }
}
