import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport
#if canImport(Glibc)
import Glibc
import RewindSupport
#endif

/// A log has one writer at a time (Docs/Security.md, "One writer per log"), and a writer that
/// could not write says so when it opens, not at every append.
@Suite("One writer per log", .ownThreads)
struct OneWriterTests {
    @Test("a second writer is refused in one sentence naming the first; readers work beside it; once closed, the log is free")
    func secondWriterRefused() throws {
        let directory = try TemporaryDirectory()
        let (writer, id) = try makeWriter(directory)
        let completions = Completions()
        writer.append(Fixture.events(session: id, seqs: 0..<5), completion: completions.handler)
        _ = try #require(completions.wait(for: 1))
        do {
            _ = try LogWriter(path: writer.path)
            Issue.record("a second writer opened the log")
        } catch {
            #expect(error.kind == .writerBusy(holder: "pid \(getpid()): \(URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent)"
                + (CommandLine.arguments.count > 1 ? " \(CommandLine.arguments[1])" : "")), "\(error)")
            #expect(error.description.hasPrefix("\(writer.path) is already being written by another process (pid \(getpid()): "), "\(error)")
            #expect(error.description.hasSuffix("a log takes one writer at a time: stop that one, or read beside it (rewind serve --read-only, rewind log, …)."))
        }
        // Readers are not writers.
        let reader = try LogReader(path: writer.path)
        #expect(try reader.events(session: id).map(\.seq) == Array(0..<5))
        // The first writer still writes.
        writer.append(Fixture.events(session: id, seqs: 5..<7), completion: completions.handler)
        let results = try #require(completions.wait(for: 2))
        #expect(results.allSatisfy { $0.error == nil })
        writer.close()
        // Closed: the next writer takes the log and continues it.
        let next = try LogWriter(path: writer.path)
        defer { next.close() }
        #expect(try next.nextSeq(session: id) == 7)
    }

    @Test("a writer in another process holds the log until it ends, however it ends")
    func otherProcess() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("held.db")
        // flock(1) holds the lock file as a writer would; the log refuses a writer while it runs.
        try Data("pid 1: someone else\n".utf8).write(to: URL(fileURLWithPath: path + "-writer"))
        let holder = try Subprocess("/usr/bin/flock", ["--exclusive", path + "-writer", "/bin/sh", "-c", "echo held; read line"],
                                    input: .pipe, output: .pipe, error: .standardOutput)
        let output = HolderOutput()
        PipeReader.start(holder.standardOutput!) { output.append($0) }
        try #require(output.wait(for: "held\n", timeout: 30), "flock did not start: \(output.text)")
        do {
            _ = try LogWriter(path: path)
            Issue.record("a writer opened a log another process holds")
        } catch {
            #expect(error.kind == .writerBusy(holder: "pid 1: someone else"), "\(error)")
        }
        // The holder ends: the lock goes with it.
        try holder.standardInput!.close()
        _ = holder.waitUntilExit()
        let writer = try LogWriter(path: path)
        writer.close()
        #expect(try String(contentsOfFile: path + "-writer", encoding: .utf8).hasPrefix("pid \(getpid()): "))
    }

    @Test("a log that cannot be written is refused when the writer opens, in one sentence")
    func readOnly() throws {
        // Not even root may create a file in /sys.
        do {
            _ = try LogWriter(path: "/sys/rewind-\(UUID().uuidString).db")
            Issue.record("a writer opened a log in /sys")
        } catch {
            #expect(error.kind == .readOnly, "\(error)")
            #expect(error.description.contains("cannot be written: cannot create"), "\(error)")
        }
    }
}

/// What a child printed, waited on with a deadline.
private final class HolderOutput: Sendable {
    private let data = Condition(Data())

    func append(_ more: Data) {
        data.update(waking: .all) { $0.append(more) }
    }

    var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }

    func wait(for expected: String, timeout: Double) -> Bool {
        data.wait(for: { String(decoding: $0, as: UTF8.self) == expected }, deadline: MonotonicClock.deadline(after: timeout))
    }
}
