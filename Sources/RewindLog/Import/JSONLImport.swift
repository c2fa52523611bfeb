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

    /// Reads every line of `bytes` and builds the session's events.
    public static func parse(_ bytes: [UInt8], options: ImportOptions = ImportOptions()) throws(ImportError) -> ImportedSession {
        var session = ImportedSessionBuilder(importedAt: options.importedAt)
        var meta = ImportMeta(format: .jsonl, file: options.file, importedAt: options.importedAt.timeIntervalSince1970)
        var times = SecondsTextRecorder()
        var records = 0
        var sawAction = false
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
                meta.fields = record.fields == fields.filter(record.fields.contains) ? nil : record.fields
            }
            let seq = session.nextSeq
            if let at = record.at {
                times.add(seq: seq, text: at.text, seconds: at.seconds)
            } else {
                meta.markUntimed(seq)
            }
            session.add(action: record.action, state: record.state, at: record.at?.date)
            records += 1
            options.report(records)
        }
        guard records > 0 else { throw ImportError(.document, "the file holds no lines to import") }
        times.finish(into: &meta)
        return ImportedSession(events: session.events, importMeta: meta)
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
            if let unknown = object.keys.first(where: { !JSONLImport.fields.contains($0) }) {
                throw ImportError(.line(line), "the line has a member \"\(unknown)\"; a line holds only \"action\", \"state\" and \"at\"")
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
