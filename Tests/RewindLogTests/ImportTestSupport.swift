import Foundation
import RewindJSON
@testable import RewindLog

/// Helpers for the import and export tests.
enum ImportSupport {
    /// The UTF-8 bytes of `lines`, each followed by `\n`.
    static func jsonl(_ lines: [String]) -> [UInt8] {
        Array(lines.map { $0 + "\n" }.joined().utf8)
    }

    /// The state after each event, rebuilt from seq 0's keyframe and the forward patches.
    static func states(of events: [LogEvent]) throws -> [JSONValue] {
        guard let first = events.first, let initial = first.keyframe else { return [] }
        var states = [initial]
        var state = initial
        for event in events.dropFirst() {
            try state.apply(try JSONPatch(json: event.patch))
            states.append(state)
        }
        return states
    }

    /// Parses JSON text written in a test.
    static func json(_ text: String) throws -> JSONValue {
        try JSONValue(parsing: text)
    }

    /// Runs `body` and returns the ``ImportError`` it throws, or `nil`.
    static func importError(_ body: () throws(ImportError) -> Void) -> ImportError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }
}
