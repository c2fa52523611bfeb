import Foundation
import RewindJSON
import RewindLog
import RewindPostgres
import RewindSupport
import RewindTestSupport
import Testing

/// The two stores every store test runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// A log file in a temporary folder.
    case sqlite
    /// A fresh database on the tests' PostgreSQL cluster.
    case postgres

    var testDescription: String { rawValue }

    /// A new, empty store of this kind.
    func make() throws -> TestStore {
        switch self {
        case .sqlite:
            let directory = try TemporaryDirectory()
            return TestStore(kind: self, store: SQLiteLogStore(path: directory.path("log.db")), directory: directory, databaseURL: nil)
        case .postgres:
            let url = try PostgresTestCluster.shared().createDatabase(prefix: "store")
            return TestStore(kind: self, store: try PostgresLogStore(url: url), directory: nil, databaseURL: url)
        }
    }
}

/// One store of a test, and what it takes to remove it again.
final class TestStore {
    let kind: StoreKind
    let store: any LogStore
    /// The log file's folder (SQLite).
    let directory: TemporaryDirectory?
    /// The database's URL, with its password (PostgreSQL).
    let databaseURL: String?

    init(kind: StoreKind, store: any LogStore, directory: TemporaryDirectory?, databaseURL: String?) {
        self.kind = kind
        self.store = store
        self.directory = directory
        self.databaseURL = databaseURL
    }

    /// What errors call the store: the file's path, the URL without its password.
    var location: String { store.location }

    func writer(_ options: LogWriter.Options = LogWriter.Options()) throws -> any LogStoreWriter {
        try store.openWriter(options: options)
    }

    func reader() throws -> LogReader {
        try store.openReader()
    }

    /// Runs `sql` on the store directly (not through Rewind), as an administrator would.
    func execute(_ sql: String) throws {
        if let databaseURL {
            _ = try PostgresTestCluster.shared().psql(sql, database: databaseURL)
        } else if let directory {
            try Connection(path: directory.path("log.db")).execute(sql)
        }
    }

    /// Removes the file or drops the database (its connections are ended first).
    func cleanup() {
        directory?.cleanup()
        if let databaseURL { try? PostgresTestCluster.shared().dropDatabase(databaseURL) }
    }
}

/// Events with small patches and every column set, as a recorder writes them.
enum Events {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// Seq `seq` of a counter: action `type` with a payload (and `text` in it, when given), a
    /// duration, a cause from seq 1 on, coalesced every 7th, a keyframe at seq 0 or when asked.
    static func event(session: Int64, seq: Int64, type: String = "counter/increment", keyframe: Bool = false,
                      text: String? = nil, at: Date? = nil) -> LogEvent {
        var payload: JSONObject = ["step": .number(JSONNumber(seq))]
        if let text { payload["note"] = .string(text) }
        let action: JSONValue = ["type": .string(type), "payload": .object(payload)]
        let state: JSONValue = ["count": .number(JSONNumber(seq)), "title": "counter"]
        let storedState: JSONValue? = keyframe || seq == 0 ? state : Optional.none
        return LogEvent(
            sessionID: session, seq: seq, at: at ?? start.addingTimeInterval(Double(seq) + 0.125), action: action,
            patch: [["op": "replace", "path": "/count", "value": .number(JSONNumber(seq))]],
            inverse: [["op": "replace", "path": "/count", "value": .number(JSONNumber(seq - 1))]],
            hash: state.stableHash, durationNs: 1_000 + seq * 37, cause: seq > 0 ? seq - 1 : nil,
            coalesced: seq % 7 == 3, keyframe: storedState)
    }

    static func events(session: Int64, seqs: Range<Int64>, keyframeEvery: Int64 = 0) -> [LogEvent] {
        seqs.map { event(session: session, seq: $0, keyframe: keyframeEvery > 0 && $0 % keyframeEvery == 0) }
    }

    /// `events` as a reader returns them without keyframes.
    static func withoutKeyframes(_ events: [LogEvent]) -> [LogEvent] {
        events.map { event in
            var event = event
            event.keyframe = Optional.none
            return event
        }
    }
}

/// Collects completion results from a writer's thread; tests wait on it with a deadline.
final class Completions: Sendable {
    private let results = Condition<[Result<Void, LogError>]>([])

    var handler: @Sendable (Result<Void, LogError>) -> Void {
        { [results] result in
            results.update(waking: .all) { $0.append(result) }
        }
    }

    /// The results once `count` have arrived, or `nil` after `timeout` seconds.
    func wait(for count: Int, timeout: Double = 60) -> [Result<Void, LogError>]? {
        results.withLock(when: { $0.count >= count }, deadline: MonotonicClock.deadline(after: timeout)) { $0 }
    }
}

extension Result where Success == Void, Failure == LogError {
    var error: LogError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Appends `events` as one batch and waits until it is committed; throws what the writer said.
func appendCommitted(_ writer: any LogStoreWriter, _ events: [LogEvent]) throws {
    let completions = Completions()
    writer.append(events, completion: completions.handler)
    try writer.commit()
    guard let result = completions.wait(for: 1)?.first else {
        throw PostgresTestClusterError("the writer did not complete a batch within 60 s.")
    }
    try result.get()
}

/// Whether `text` reads as one sentence: one line that ends with a period.
func isOneSentence(_ text: String) -> Bool {
    !text.contains("\n") && text.hasSuffix(".") && !text.isEmpty
}
