import Foundation
import RewindJSON
import RewindLog
import RewindServer
import Testing
@testable import RewindRecorder
import RewindTestSupport
@testable import RewindAppTestSupport

/// What a recording says about where it ran (the device model and OS the recorder finds) and
/// the tags the app gives, as the log stores them, for an app on `Recorder` alone.
@Suite("Recording metadata: device, OS and tags", .serialized, .ownThreads)
struct RecordingMetadataTests {
    /// This machine's `uname -m`, found here without the recorder's code.
    static func machine() throws -> String {
        let child = try Subprocess("/bin/uname", ["-m"], output: .pipe)
        let output = child.standardOutput?.readDataToEndOfFile() ?? Data()
        #expect(child.waitUntilExit() == 0)
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `PRETTY_NAME` of /etc/os-release, read here with a plain line match.
    static func prettyName() throws -> String? {
        let text = try String(contentsOfFile: "/etc/os-release", encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") }) else { return nil }
        return String(line.dropFirst("PRETTY_NAME=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
    }

    @Test("a Recorder's session carries the device, the OS and the app's tags; the log filters by them")
    func recordedToFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let recorder = Recorder<AppState, AppAction>(initialState: AppState(), to: .file(path),
                                                     metadata: RecordingMetadata(app: "Todos", version: "1.4", tags: ["bug report", "beta"]))
        recorder.record(.increment, state: AppState(count: 1))
        recorder.stop()
        #expect(recorder.lastError == nil)

        let reader = try LogReader(path: path)
        let session = try reader.session(named: recorder.session.uuid)
        #expect(session.device == (try Self.machine()))
        #expect(session.os == (try Self.prettyName()))
        #expect(session.appVersion == "1.4")
        #expect(session.tags == ["bug report", "beta"])
        #expect(session.meta["host"]?.stringValue == RecordingMetadata.hostName())
        #expect(try reader.sessions(matching: SessionFilter(tag: "beta")).map(\.uuid) == [recorder.session.uuid])
        #expect(try reader.sessions(matching: SessionFilter(device: try Self.machine(), tag: "bug report")).count == 1)
        #expect(try reader.sessions(matching: SessionFilter(tag: "bug")).isEmpty)
    }

    @Test("tags that cannot be tags are left out in one sentence; the recording goes on and is delivered")
    func badTagsLeftOut() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let long = String(repeating: "x", count: 65)
        let many = (0..<20).map { "t\($0)" }
        let metadata = RecordingMetadata(app: "Todos", tags: ["ok", "", long, "ok"] + many, extra: ["tags": ["from extra"]])
        let recorder = Recorder<AppState, AppAction>(initialState: AppState(), to: .file(path), metadata: metadata)
        recorder.record(.increment, state: AppState(count: 1))
        let result = await withCheckedContinuation { continuation in
            recorder.finishInBackground { continuation.resume(returning: $0) }
        }
        #expect(result.delivered)
        #expect(result.recorded == 2)
        let error = try #require(recorder.lastError)
        #expect(error.kind == .tagsLeftOut)
        #expect(error.description == "rewind: 8 tags were left out: an empty tag, 'xxxxxxxxxxxxxxxxxxxxxxxx…' (a tag has at most 64 bytes of UTF-8; this one has 65), 't15' (a session carries at most 16 tags) and 5 more; the session is recorded without them")
        let session = try LogReader(path: path).session(named: recorder.session.uuid)
        #expect(session.tags == ["ok"] + many.prefix(15))
        #expect(session.eventCount == 2)

        // An extra "tags" that is no list of strings is left out the same way.
        let odd = RecordingMetadata(app: "Todos", tags: ["kept"], extra: ["tags": 5])
        #expect(odd.sessionMeta.meta["tags"] == ["kept"])
        #expect(odd.sessionMeta.leftOut == "the meta's \"tags\" is not a list of strings: 5")
        #expect(RecordingMetadata(app: "Todos", extra: ["tags": ["a", "b"]]).sessionMeta.meta["tags"] == ["a", "b"])
        #expect(RecordingMetadata(app: "Todos").sessionMeta.meta["tags"] == nil)
        #expect(RecordingMetadata(app: "Todos", device: "iPhone15,2", os: "iOS 17.4").json["device"] == "iPhone15,2")
    }

    @Test("streamed to rewind serve, the session is stored with its device, OS, version and tags")
    func streamedToServer() async throws {
        let directory = try TemporaryDirectory()
        let served = try InProcessServer(log: directory.path("served.db"))
        defer { served.stop() }
        let sink = ServerSink(url: served.url)
        defer { sink.disconnect() }
        let recorder = Recorder<AppState, AppAction>(initialState: AppState(), to: .sinks([sink]),
                                                     metadata: RecordingMetadata(app: "Todos", version: "2.0", tags: ["qa"]))
        recorder.record(.increment, state: AppState(count: 1))
        #expect(await waitUntil(timeout: 20) { sink.isConnected && sink.unacknowledgedCount == 0 })
        recorder.stop()
        let reader = try LogReader(path: directory.path("served.db"))
        let session = try reader.session(named: recorder.session.uuid)
        #expect(session.tags == ["qa"] && session.appVersion == "2.0")
        let machine = try Self.machine()
        let system = try Self.prettyName()
        #expect(session.device == machine && session.os == system)
        #expect(try reader.sessions(matching: SessionFilter(appVersion: "2.0", tag: "qa")).count == 1)
    }

    @Test("the Linux OS comes from os-release: quotes, escapes and comments; NAME when there is no PRETTY_NAME")
    func osRelease() throws {
        let fields = DeviceInfo.osRelease("""
            # a comment
            NAME="Debian GNU/Linux"
            PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
            VERSION_ID='12'
              ID=debian\t
            QUOTED="say \\"hi\\" \\\\ \\$HOME"
            BROKEN="no end
            lower-case=ignored
            =no key
            """)
        #expect(fields["PRETTY_NAME"] == "Debian GNU/Linux 12 (bookworm)")
        #expect(fields["VERSION_ID"] == "12")
        #expect(fields["ID"] == "debian")
        #expect(fields["QUOTED"] == "say \"hi\" \\ $HOME")
        #expect(fields["BROKEN"] == nil)
        #expect(fields.count == 5)

        let directory = try TemporaryDirectory()
        let named = directory.path("named")
        try "NAME=Alpine\nVERSION_ID=3.19\n".write(toFile: named, atomically: true, encoding: .utf8)
        #expect(DeviceInfo.linuxSystem(files: [directory.path("missing"), named]) == "Alpine 3.19")
        let huge = directory.path("huge")
        try String(repeating: "X=\(String(repeating: "y", count: 300))\n", count: 1_000).write(toFile: huge, atomically: true, encoding: .utf8)
        #expect(DeviceInfo.linuxSystem(files: [huge]) == "Linux " + (DeviceInfo.release() ?? ""))
        // The Apple path, as an iOS build takes it here: the simulated model when the simulator
        // names one, else uname's machine.
        #expect(DeviceInfo.appleDevice(environment: ["SIMULATOR_MODEL_IDENTIFIER": "iPhone16,1"]) == "iPhone16,1")
        #expect(DeviceInfo.appleDevice(environment: [:]) == (try Self.machine()))
        #expect(DeviceInfo.appleSystem().hasPrefix("iOS "))
    }
}
