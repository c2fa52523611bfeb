import Foundation
import RewindJSON

/// How a time in seconds since 1970 is written back as JSON text, and which way of writing
/// gives back the texts an import read.
enum SecondsText {
    /// `seconds` with `decimals` fixed digits, or (`nil`) the shortest text that reads back as
    /// the same `Double`.
    static func text(_ seconds: Double, decimals: Int?) -> String {
        if let decimals { return String(format: "%.\(decimals)f", seconds) }
        return JSONNumber(seconds)?.text ?? "0"
    }

    /// The number of digits after the point of a plain decimal (`-12.340` → 3); `nil` for
    /// integers and exponent forms.
    static func fixedDecimals(of text: String) -> Int? {
        let utf8 = text.utf8
        guard let point = utf8.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        let fraction = utf8[utf8.index(after: point)...]
        guard !fraction.isEmpty, fraction.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return fraction.count
    }

    /// The value the log gives back for a time given as `seconds`: `Date` keeps its own
    /// reference date, so the trip in (``LogEvent/at`` → REAL) and out (REAL → `Date` →
    /// seconds) can move a far-off time by an ulp.
    static func stored(_ seconds: Double) -> Double {
        let written = Date(timeIntervalSince1970: seconds).timeIntervalSince1970
        return Date(timeIntervalSince1970: written).timeIntervalSince1970
    }
}

/// Collects the `at` texts of a JSONL import and picks the rule that gives most of them back:
/// a fixed number of decimals when every text has the same, else the shortest text. The texts
/// the rule misses are kept one by one.
struct SecondsTextRecorder {
    private var shortestMisses: [Int64: String] = [:]
    private var fixedMisses: [Int64: String] = [:]
    private var fixedDecimals: Int?
    private var fixedViable = true

    mutating func add(seq: Int64, text: String, seconds: Double) {
        let stored = SecondsText.stored(seconds)
        if SecondsText.text(stored, decimals: nil) != text { shortestMisses[seq] = text }
        guard fixedViable else { return }
        if let decimals = SecondsText.fixedDecimals(of: text), fixedDecimals == nil || fixedDecimals == decimals {
            fixedDecimals = decimals
            if SecondsText.text(stored, decimals: decimals) != text { fixedMisses[seq] = text }
        } else {
            fixedViable = false
            fixedMisses = [:]
        }
    }

    /// Writes the chosen rule and its misses into `meta`.
    func finish(into meta: inout ImportMeta) {
        if fixedViable, let fixedDecimals, fixedMisses.count < shortestMisses.count {
            meta.atDecimals = fixedDecimals
            meta.atText = fixedMisses
        } else {
            meta.atDecimals = nil
            meta.atText = shortestMisses
        }
    }
}
