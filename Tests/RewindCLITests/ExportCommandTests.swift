import Foundation
import RewindLog
import RewindSupport
import Testing
import RewindTestSupport

/// `rewind export`, run as a user would run it.
@Suite("rewind export", .ownThreads)
struct ExportCommandTests {
    func withLog(_ body: (TemporaryDirectory, String) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try body(directory, directory.url.appendingPathComponent("log.db").path)
    }

    @Test("a recorded session: seq 0 without an action, then one line per action, with its time")
    func recordedSession() throws {
        try withLog { _, db in
            try LogFixture.recordSession(path: db, uuid: "0f1e2d3c-aaaa-4000-8000-000000000001",
                                         startedAt: Date(timeIntervalSince1970: 1_700_000_000.5))
            let result = try CLIRunner.run(["export", "0f1e", "--db", db])
            #expect(result.status == 0)
            #expect(result.stderr == "")
            #expect(result.stdout == """
            {"state":{"count":0},"at":1700000000.5}
            {"action":{"type":"increment"},"state":{"count":1},"at":1700000001.5}
            {"action":{"type":"increment"},"state":{"count":2},"at":1700000002.5}

            """)
        }
    }

    @Test("-o writes the file and nothing else; the default format is the one imported from")
    func outputFile() throws {
        try withLog { directory, db in
            let input = try directory.file("in.json", contents: ImportCommandTests.lifted)
            #expect(try CLIRunner.run(["import", input, "--db", db]).status == 0)
            let out = directory.url.appendingPathComponent("out.json").path
            let result = try CLIRunner.run(["export", "latest", "-o", out, "--db", db])
            #expect(result.status == 0)
            #expect(result.stdout == "")
            let written = try String(contentsOfFile: out, encoding: .utf8)
            #expect(written.hasPrefix(#"{"actionsById":{"0":{"type":"PERFORM_ACTION","action":{"type":"@@INIT"},"timestamp":1700000000000}"#))
            #expect(written.hasSuffix(#""stagedActionIds":[0,1,2]}"# + "\n"))
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
            #expect(names.filter { !$0.hasPrefix("log.db") } == ["in.json", "out.json"])
        }
    }

    @Test("-o to what is not a regular file writes in place: a device node stays a device, a FIFO gets the lines, a link keeps naming its file (issue 38)")
    func outputThatIsNotARegularFile() throws {
        try withLog { directory, db in
            try LogFixture.recordSession(path: db, uuid: "0f1e2d3c-aaaa-4000-8000-000000000001", startedAt: Date(timeIntervalSince1970: 1_700_000_000.5))
            let expected = try CLIRunner.run(["export", "0f1e", "--db", db]).stdout
            // A character device like /dev/null, made in the test's folder (as root; elsewhere
            // the FIFO and the link below still run).
            let device = directory.path("null")
            // /dev/null's numbers, 1 and 3, as each system packs them into a dev_t.
            #if os(Linux)
            let null = dev_t(1 << 8 | 3)
            #else
            let null = dev_t(1 << 24 | 3)
            #endif
            if mknod(device, S_IFCHR | 0o666, null) == 0 {
                let result = try CLIRunner.run(["export", "0f1e", "-o", device, "--db", db])
                #expect(result.status == 0, "\(result.stderr)")
                var info = stat()
                #expect(stat(device, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "the device node was replaced")
            }
            // A FIFO: what a reader at its other end gets is the export.
            let fifo = directory.path("pipe")
            #expect(mkfifo(fifo, 0o600) == 0)
            let received = Condition<String?>(nil)
            let reader = Thread {
                // A blocking open: it waits for the export to open the other end.
                let fd = open(fifo, O_RDONLY)
                var bytes: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while fd >= 0 {
                    let n = read(fd, &buffer, buffer.count)
                    guard n > 0 else { break }
                    bytes += buffer[..<n]
                }
                if fd >= 0 { close(fd) }
                let text = String(decoding: bytes, as: UTF8.self)
                received.update(waking: .all) { $0 = text }
            }
            reader.start()
            let toFIFO = try CLIRunner.run(["export", "0f1e", "-o", fifo, "--db", db])
            #expect(toFIFO.status == 0, "\(toFIFO.stderr)")
            #expect(received.wait(for: { $0 != nil }, deadline: MonotonicClock.deadline(after: 30)))
            #expect(received.withLock { $0 } == expected)
            var fifoInfo = stat()
            #expect(stat(fifo, &fifoInfo) == 0 && fifoInfo.st_mode & S_IFMT == S_IFIFO)
            // A symbolic link to a file: the file is replaced, the link stays a link.
            let target = directory.path("target.jsonl")
            #expect(FileManager.default.createFile(atPath: target, contents: Data("old\n".utf8)))
            let link = directory.path("link.jsonl")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            #expect(try CLIRunner.run(["export", "0f1e", "-o", link, "--db", db]).status == 0)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == expected)
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == target)
            // A folder: one sentence.
            let folder = try CLIRunner.run(["export", "0f1e", "-o", directory.url.path, "--db", db])
            #expect(folder.status == 2 && folder.stderr == "cannot write \(directory.url.path): it is a folder; name a file\n", "\(folder.stderr)")
        }
    }

    @Test("an unknown session exits 2 with one sentence, and -o creates no file")
    func unknownSession() throws {
        try withLog { directory, db in
            try LogFixture.recordSession(path: db, uuid: "only", startedAt: Date())
            let out = directory.url.appendingPathComponent("out.jsonl").path
            let result = try CLIRunner.run(["export", "42", "-o", out, "--db", db])
            #expect(result.status == 2)
            #expect(result.stdout == "")
            #expect(result.stderr == "No session named '42' in \(db): no id or uuid matches it.\n")
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    @Test("without a log, export exits 2 and says so")
    func noLog() throws {
        try withLog { _, db in
            let result = try CLIRunner.run(["export", "latest", "--db", db])
            #expect(result.status == 2)
            #expect(result.stderr == "no log at \(db): record or import a session first, or name one with --db\n")
        }
    }
}
