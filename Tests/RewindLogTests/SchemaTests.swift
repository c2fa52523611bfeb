import Foundation
import RewindJSON
import Testing
@testable import RewindLog
import RewindTestSupport

@Suite("Log file: schema, reopening, refusing what is not ours", .ownThreads)
struct SchemaTests {
    @Test("A new file gets schema 7, the Rewind application id, WAL and its tables; reopening keeps them")
    func createAndReopen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.db")
        do {
            let (writer, id) = try makeWriter(directory, name: "new.db")
            writer.append(Fixture.events(session: id, seqs: 0..<3))
            try writer.flush()
            writer.close()
        }
        let raw = try Connection(path: path)
        #expect(try raw.scalarInt("PRAGMA application_id") == Int64(LogSchema.applicationID))
        #expect(try raw.scalarInt("PRAGMA user_version") == 7)
        #expect(try raw.scalarInt("PRAGMA page_size") == Int64(LogSchema.pageSize))
        #expect(try raw.scalarInt("SELECT count(*) FROM rewind_schema WHERE version IN (1, 2, 3, 4, 5, 6, 7)") == 7)
        let mode = try raw.prepare("PRAGMA journal_mode")
        #expect(try mode.step())
        #expect(mode.string(0) == "wal")
        for table in ["sessions", "events", "keyframes", "events_fts", "rewind_prune", "rewind_schema", "non_finite", "send_sites", "rewind_fts_progress", "deliveries", "session_tags"] {
            let statement = try raw.prepare("SELECT count(*) FROM sqlite_schema WHERE name = ?1")
            try statement.bind(table, at: 1)
            try statement.step()
            #expect(statement.int64(0) == 1, "table \(table)")
        }
        // Reopening neither migrates again nor loses anything.
        let writer = try LogWriter(path: path)
        #expect(try writer.nextSeq(session: 1) == 3)
        writer.close()
        let reader = try LogReader(path: path)
        #expect(try reader.eventCount() == 3)
        #expect(try raw.scalarInt("SELECT count(*) FROM rewind_schema") == 7)
    }

    @Test("Every connection runs with synchronous=NORMAL")
    func synchronousNormal() throws {
        let directory = try TemporaryDirectory()
        let (writer, _) = try makeWriter(directory)
        defer { writer.close() }
        let reader = try LogReader(path: directory.path("log.db"))
        #expect(try reader.connection.scalarInt("PRAGMA synchronous") == 1)
        let level = try writer.call { engine throws(LogError) in try engine.connection.scalarInt("PRAGMA synchronous") }
        #expect(level == 1)
    }

    @Test("A file written by a newer Rewind is refused with a sentence that says so")
    func newerSchemaRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("future.db")
        try LogWriter(path: path).close()
        try Connection(path: path).execute("PRAGMA user_version=8")
        let error = #expect(throws: LogError.self) { try LogReader(path: path) }
        #expect(error?.kind == .newerSchema(found: 8, supported: 7))
        #expect(error?.description == "\(path) was written by a newer Rewind (schema 8); this build reads schema 7.")
        #expect(throws: LogError.self) { try LogWriter(path: path) }
    }

    @Test("Files that are not Rewind logs are refused with a sentence, never a crash",
          arguments: ["text", "sqlite", "random", "short"])
    func notARewindLog(kind: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("file-\(kind)")
        switch kind {
        case "text":
            try Data("# Shopping\n- milk\n- eggs\n".utf8).write(to: URL(fileURLWithPath: path))
        case "sqlite":
            try Connection(path: path).execute("CREATE TABLE contacts(name TEXT); INSERT INTO contacts VALUES ('Ada')")
        case "random":
            var generator = SystemRandomNumberGenerator()
            try Data((0..<8_192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: path))
        default:
            try Data([0x53, 0x51, 0x4C]).write(to: URL(fileURLWithPath: path))
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let readError = #expect(throws: LogError.self) { try LogReader(path: path) }
        let writeError = #expect(throws: LogError.self) { try LogWriter(path: path) }
        for error in [readError, writeError] {
            #expect(error?.kind == .notARewindLog)
            #expect(error?.description.hasPrefix("\(path) is not a Rewind log: ") == true, "\(String(describing: error))")
        }
        // Refusing a file never changes it.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("A missing file is an error for a reader and a new log for the writer")
    func missingFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("missing.db")
        let error = #expect(throws: LogError.self) { try LogReader(path: path) }
        #expect(error?.kind == .fileNotFound)
        #expect(error?.description == "No Rewind log at \(path): the file does not exist.")
        try LogWriter(path: path).close()
        #expect(try LogReader(path: path).sessions().isEmpty)
    }

    @Test("An empty file becomes a log")
    func emptyFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("empty.db")
        try Data().write(to: URL(fileURLWithPath: path))
        #expect(try LogReader(path: path).sessions().isEmpty)
    }
}
