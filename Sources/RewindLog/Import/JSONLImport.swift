import Foundation
import RewindJSON

/// Reads a JSONL recording: one JSON object per line, `{"action": …, "state": …, "at": …}`.
///
/// - `state` (required): the state after the action.
/// - `action`: the action. Only the first line may leave it out: that line is then the initial
///   state, seq 0. When the first line has an action, seq 0 is an empty object `{}` that Rewind
///   makes up (``ImportMeta/syntheticInitial``) and the first line is seq 1.
/// - `at` (optional): when the action happened, in seconds since 1970, fractions allowed. A line
///   without it happened at the previous line's time.
/// - `cause`, `site`, `coalesced` (optional, what `rewind export` writes for a recorded
///   session): the seq whose effect sent the action, where the app sent it
///   (`{"file", "line", "function"}`), and whether its state was coalesced (not recorded).
/// - On the first line only, `redacted` and `redactedKeys` (arrays of strings): what the recorder
///   redacted, so that a verifier redacts its states the same way; and `from` (a seq): the line
///   is the state at that seq of the recording (`rewind test --from`).
///
/// Blank lines are skipped (they still count for line numbers); any other member is an error,
/// since exporting the session could not give it back. The whole file is checked before
/// anything is written: the first bad line is thrown, naming its line.
///
/// ```swift
/// let session = try JSONLImport.parse(Array(#"{"state":{"n":0}}\n{"action":"inc","state":{"n":1}}"#.utf8))
/// session.events.count  // 2
/// ```
public enum JSONLImport {
    /// The members a line may have, in the order export writes them unless the file used another.
    public static let fields = ["action", "state", "at"]
    /// What export adds for a recorded session, after the members above.
    public static let provenanceFields = ["cause", "site", "coalesced"]
    /// What only the first line may carry.
    public static let firstLineFields = ["redacted", "redactedKeys", "from"]

    /// Reads every line of `bytes` and builds the session's events.
    public static func parse(_ bytes: [UInt8], options: ImportOptions = ImportOptions()) throws(ImportError) -> ImportedSession {
        var session = ImportedSessionBuilder(importedAt: options.importedAt)
        var meta = ImportMeta(format: .jsonl, file: options.file, importedAt: options.importedAt.timeIntervalSince1970)
        var times = SecondsTextRecorder()
        var records = 0
        var sawAction = false
        var parsed = (redacted: [String](), redactedKeys: [String](), firstSeq: Int64(0))
        for line in JSONLines(bytes) where !line.isBlank {
            let record = try Record(line.content, line: line.number, isFirst: records == 0)
            if records == 0 && record.action != nil {
                session.add(action: nil, state: [:], at: record.at?.date)
                meta.syntheticInitial = true
            }
            // The member order export uses: the first line with an action's, else the first line's.
            if records == 0 || (!sawAction && record.action != nil) {
                sawAction = record.action != nil
                // Remembered only when it is not the order export writes anyway.
                let known = record.fields.filter(fields.contains)
                meta.fields = known == fields.filter(known.contains) ? nil : known
            }
            if records == 0 {
                parsed.redacted = record.redacted
                parsed.redactedKeys = record.redactedKeys
                parsed.firstSeq = record.from ?? 0
            }
            let seq = session.nextSeq
            if let at = record.at {
                times.add(seq: seq, text: at.text, seconds: at.seconds)
            } else {
                meta.markUntimed(seq)
            }
            session.add(action: record.action, state: record.state, at: record.at?.date)
            if record.cause != nil || record.site != nil || record.coalesced {
                // Causes count in the recording's seqs; the session's start at `from`.
                let cause = record.cause.map { $0 - parsed.firstSeq }
                guard cause.map({ $0 < seq }) ?? true else {
                    throw ImportError(.line(line.number), "\"cause\" (\(record.cause!)) must be the seq of an earlier line")
                }
                session.annotateLast(cause: cause.flatMap { $0 >= 0 ? $0 : nil }, site: record.site, coalesced: record.coalesced)
            }
            records += 1
            options.report(records)
        }
        guard records > 0 else { throw ImportError(.document, "the file holds no lines to import") }
        times.finish(into: &meta)
        var imported = ImportedSession(events: session.events, importMeta: meta)
        imported.redacted = parsed.redacted
        imported.redactedKeys = parsed.redactedKeys
        imported.firstSeq = parsed.firstSeq
        return imported
    }

    /// One line, checked.
    struct Record {
        struct Time {
            var text: String
            var seconds: Double
            var date: Date { Date(timeIntervalSince1970: seconds) }
        }

        var action: JSONValue?
        var state: JSONValue
        var at: Time?
        var fields: [String]
        var cause: Int64?
        var site: SendSite?
        var coalesced = false
        var redacted: [String] = []
        var redactedKeys: [String] = []
        var from: Int64?

        init(_ content: ArraySlice<UInt8>, line: Int, isFirst: Bool) throws(ImportError) {
            let value: JSONValue
            do {
                value = try JSONValue(parsing: Array(content))
            } catch {
                throw ImportError(.lineAndColumn(line, error.column), error.message)
            }
            guard case .object(let object) = value else {
                throw ImportError(.line(line), "expected a JSON object, found \(Self.article(value.typeName))")
            }
            let allowed = JSONLImport.fields + JSONLImport.provenanceFields + (isFirst ? JSONLImport.firstLineFields : [])
            if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
                let only = JSONLImport.firstLineFields.contains(unknown) ? "; only the first line may say \"\(unknown)\"" : ""
                throw ImportError(.line(line), "the line has a member \"\(unknown)\"; a line holds \"action\", \"state\" and \"at\", and may say \"cause\", \"site\" and \"coalesced\"\(only)")
            }
            guard let state = object["state"] else {
                throw ImportError(.line(line), "the line has no \"state\"")
            }
            let action = object["action"]
            if action == nil && !isFirst {
                throw ImportError(.line(line), "the line has no \"action\" (only the first line, the initial state, may leave it out)")
            }
            if let at = object["at"] {
                guard case .number(let number) = at else {
                    throw ImportError(.line(line), "\"at\" must be a number of seconds since 1970, not \(Self.article(at.typeName))")
                }
                let seconds = number.doubleValue
                // 10¹¹ seconds is year 5138: a larger "at" is milliseconds, or not a time at all.
                guard seconds.isFinite, abs(seconds) < 1e11 else {
                    throw ImportError(.line(line), "\"at\" (\(number.text)) is too large for seconds since 1970 (milliseconds?)")
                }
                self.at = Time(text: number.text, seconds: seconds)
            } else {
                self.at = nil
            }
            self.action = action
            self.state = state
            self.fields = object.keys
            try readProvenance(object, line: line)
        }

        /// `cause`, `site`, `coalesced`, and the first line's `redacted`, `redactedKeys`, `from`.
        private mutating func readProvenance(_ object: JSONObject, line: Int) throws(ImportError) {
            func seq(_ name: String) throws(ImportError) -> Int64? {
                guard let value = object[name], value != .null else { return nil }
                guard case .number(let number) = value, let seq = number.int64Value, seq >= 0 else {
                    throw ImportError(.line(line), "\"\(name)\" must be a seq, an integer 0 or more")
                }
                return seq
            }
            func strings(_ name: String) throws(ImportError) -> [String] {
                guard let value = object[name] else { return [] }
                guard case .array(let items) = value else {
                    throw ImportError(.line(line), "\"\(name)\" must be an array of strings")
                }
                var out: [String] = []
                for item in items {
                    guard case .string(let text) = item else { throw ImportError(.line(line), "\"\(name)\" must be an array of strings") }
                    out.append(text)
                }
                return out
            }
            cause = try seq("cause")
            from = try seq("from")
            redacted = try strings("redacted")
            redactedKeys = try strings("redactedKeys")
            if let value = object["coalesced"] {
                guard case .bool(let flag) = value else { throw ImportError(.line(line), "\"coalesced\" must be true or false") }
                coalesced = flag
            }
            if let value = object["site"], value != .null {
                guard case .object(let members) = value,
                      case .string(let file)? = members["file"], file.utf8.count <= SendSite.maxNameBytes,
                      case .string(let function)? = members["function"], function.utf8.count <= SendSite.maxNameBytes,
                      case .number(let number)? = members["line"], let lineNumber = number.int64Value,
                      lineNumber >= 0, lineNumber <= Int64(Int32.max)
                else {
                    throw ImportError(.line(line), "\"site\" must be {\"file\": string, \"line\": integer 0 or more, \"function\": string}")
                }
                site = SendSite(file: file, line: Int(lineNumber), function: function)
            }
        }

        private static func article(_ typeName: String) -> String {
            switch typeName {
            case "array", "object": "an \(typeName)"
            case "null": "null"
            default: "a \(typeName)"
            }
        }
    }
}
