import ArgumentParser
import Foundation
import RewindJSON
import RewindLog
import RewindReplay

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show what the log (or one session) holds and how much smaller it is than every state stored whole.",
        discussion: """
        Prints the events and keyframes, the bytes stored, the bytes per event, and how many \
        times smaller the log is than storing every state whole.

        How it is computed: 'stored' is the log file plus its write-ahead log (for a team \
        store, --db postgres://…, what Rewind's tables and their indexes take in the database; \
        the 'database' line gives the whole database's size); for one session, its share of \
        those, in proportion to the JSON text (actions, patches, inverses and keyframes) it holds. 'states whole' is the sum over events of the state's size as \
        compact JSON, estimated from the keyframes: each state's size is interpolated linearly \
        between the stored sizes of the keyframes around it, and held at the last keyframe's \
        size after it. 'smaller by' is states whole / stored; when that is under 1 (a small \
        session costs more than its states: pages are 4 KB), the row says 'larger by' and stored / \
        states whole.

        With --json, one object: path, fileBytes, walBytes (for a team store: databaseBytes \
        instead of these two), storedBytes, events, keyframes, bytesPerEvent, wholeStateBytes, \
        timesSmaller, and sessions (the same figures per session).

        Example: rewind stats latest
        """
    )

    @OptionGroup var log: LogLocation

    @Argument(help: "Only this session (an id, a uuid prefix or 'latest'); the whole log when left out.")
    var session: String?

    @Flag(help: "Print one JSON object.")
    var json = false

    struct Figures {
        var label: String
        var id: Int64?
        var events: Int
        var keyframes: Int
        var storedBytes: Int64
        var wholeStateBytes: Int64

        var bytesPerEvent: Double { events == 0 ? 0 : Double(storedBytes) / Double(events) }
        var timesSmaller: Double? { storedBytes == 0 || wholeStateBytes == 0 ? nil : Double(wholeStateBytes) / Double(storedBytes) }
    }

    func run() throws {
        let reader = try log.openReader()
        let sessions = try session.map { [try reader.resolveSession($0)] } ?? Self.allSessions(reader)
        let stats: LogStats
        do {
            stats = try reader.stats()
        } catch {
            throw CLIError(error.description, code: 2)
        }
        let fileBytes = stats.fileBytes + stats.walBytes
        let totalPayload = max(1, stats.eventPayloadBytes + stats.keyframePayloadBytes)
        var perSession: [Figures] = []
        for info in sessions {
            let storage = try ReplayAccess.cli { () throws(ReplayError) in try Timeline(reader: reader, session: info.id).storage() }
            let share = Int64((Double(fileBytes) * Double(storage.payloadBytes) / Double(totalPayload)).rounded())
            perSession.append(Figures(label: "\(info.id) (\(info.uuid.prefix(8)), \(info.app))", id: info.id,
                                      events: storage.events, keyframes: storage.keyframes,
                                      storedBytes: share, wholeStateBytes: storage.wholeStateBytes))
        }
        let figures: Figures
        if session != nil, let only = perSession.first {
            figures = only
        } else {
            figures = Figures(label: reader.path, id: nil, events: stats.events, keyframes: stats.keyframes, storedBytes: fileBytes,
                              wholeStateBytes: perSession.reduce(0) { $0 + $1.wholeStateBytes })
        }
        if json {
            var object = Self.json(figures)
            object["path"] = .string(reader.path)
            if let databaseBytes = stats.databaseBytes {
                object["databaseBytes"] = OutputFormat.number(databaseBytes)
            } else {
                object["fileBytes"] = OutputFormat.number(stats.fileBytes)
                object["walBytes"] = OutputFormat.number(stats.walBytes)
            }
            if session == nil { object["sessions"] = .array(perSession.map { .object(Self.json($0)) }) }
            writeJSONLine(.object(object))
            return
        }
        var rows: [[String]] = []
        if session == nil {
            rows.append(["log", reader.path])
            rows.append(["sessions", OutputFormat.count(sessions.count)])
        } else {
            rows.append(["session", figures.label])
        }
        rows.append(["events", OutputFormat.count(figures.events)])
        rows.append(["keyframes", OutputFormat.count(figures.keyframes)])
        let storedNote: String
        switch (session == nil, stats.databaseBytes != nil) {
        case (true, false): storedNote = "(file \(OutputFormat.bytes(stats.fileBytes)) + write-ahead log \(OutputFormat.bytes(stats.walBytes)))"
        case (true, true): storedNote = "(Rewind's tables and their indexes)"
        case (false, false): storedNote = "(its share of the file, by the JSON text it holds)"
        case (false, true): storedNote = "(its share of Rewind's tables, by the JSON text it holds)"
        }
        rows.append(["stored", "\(OutputFormat.bytes(figures.storedBytes)) \(storedNote)"])
        if session == nil, let databaseBytes = stats.databaseBytes {
            // A team store is a database, not a file: its size as PostgreSQL counts it.
            rows.append(["database", "\(OutputFormat.bytes(databaseBytes)) (the whole database, PostgreSQL's catalogs included)"])
        }
        rows.append(["bytes per event", OutputFormat.count(Int(figures.bytesPerEvent.rounded()))])
        rows.append(["states whole", "\(OutputFormat.bytes(figures.wholeStateBytes)) (estimated from the keyframes' sizes)"])
        if let times = figures.timesSmaller {
            let (label, factor) = Self.comparison(times)
            rows.append([label, factor + " than storing every state whole"])
        } else {
            rows.append(["smaller by", "-"])
        }
        writeStandardOutput(OutputFormat.table(rows))
        if session == nil && perSession.count > 1 {
            var table = [["SESSION", "EVENTS", "KEYFRAMES", "STORED", "B/EVENT", "STATES WHOLE", "VS WHOLE"]]
            for row in perSession {
                table.append([String(row.id ?? 0), OutputFormat.count(row.events), OutputFormat.count(row.keyframes),
                              OutputFormat.bytes(row.storedBytes), OutputFormat.count(Int(row.bytesPerEvent.rounded())),
                              OutputFormat.bytes(row.wholeStateBytes),
                              row.timesSmaller.map { Self.comparison($0) }.map { "\($0.factor) \($0.label == "smaller by" ? "smaller" : "larger")" } ?? "-"])
            }
            writeStandardOutput("\n" + OutputFormat.table(table, rightAligned: [0, 1, 2, 3, 4, 5, 6]))
        }
    }

    /// `states whole / stored` said the right way round: `("smaller by", "2.8×")`, or for a
    /// ratio under 1 (a tiny session costs more than its states) `("larger by", "7.1×")`.
    static func comparison(_ timesSmaller: Double) -> (label: String, factor: String) {
        timesSmaller >= 1 ? ("smaller by", ratio(timesSmaller)) : ("larger by", ratio(1 / timesSmaller))
    }

    /// `2.8×`, `140×`, `1.0×`.
    static func ratio(_ value: Double) -> String {
        if value >= 100 { return String(format: "%.0f×", value) }
        if value >= 1 { return String(format: "%.1f×", value) }
        return String(format: "%.2g×", value)
    }

    static func allSessions(_ reader: LogReader) throws -> [SessionInfo] {
        do {
            return try reader.sessions()
        } catch {
            throw CLIError(error.description, code: 2)
        }
    }

    static func json(_ figures: Figures) -> JSONObject {
        var object: JSONObject = [:]
        if let id = figures.id { object["session"] = OutputFormat.number(id) }
        object["events"] = OutputFormat.number(figures.events)
        object["keyframes"] = OutputFormat.number(figures.keyframes)
        object["storedBytes"] = OutputFormat.number(figures.storedBytes)
        object["bytesPerEvent"] = OutputFormat.number((figures.bytesPerEvent * 10).rounded() / 10)
        object["wholeStateBytes"] = OutputFormat.number(figures.wholeStateBytes)
        object["timesSmaller"] = figures.timesSmaller.map { OutputFormat.number(($0 * 100).rounded() / 100) } ?? .null
        return object
    }
}
