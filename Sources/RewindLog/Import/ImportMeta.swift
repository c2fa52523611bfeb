import Foundation
import RewindJSON

/// What an import remembers about its file, kept in the session's meta under `import`, so that
/// exporting the session in the same format gives the file back.
///
/// ```json
/// {"import": {"format": "jsonl", "file": "trace.jsonl", "importedAt": 1700000000.5,
///             "syntheticInitial": true, "fields": ["action", "state", "at"], "untimed": [[4, 6]]}}
/// ```
///
/// Members that hold their default are left out, so a plain import costs a few bytes.
public struct ImportMeta: Sendable, Equatable {
    /// The format the session was imported from.
    public var format: ImportFormat
    /// The name of the file it came from (no folder), when it came from a file.
    public var file: String?
    /// When the import ran, in seconds since 1970.
    public var importedAt: Double?
    /// JSONL: the first line had an action, so seq 0 is an empty state Rewind made up, which
    /// export leaves out.
    public var syntheticInitial: Bool
    /// JSONL: the member order of the lines, from the first line with an action (else the
    /// first line), when it is not `action, state, at`.
    public var fields: [String]?
    /// JSONL: the seqs whose line had no `at` (their time is the previous line's), as
    /// inclusive ranges. Export leaves `at` out of those lines.
    public var untimed: [ClosedRange<Int64>]
    /// JSONL: every `at` was written with this many decimals (`1700000000.100`): export
    /// writes them the same way. `nil`: the shortest text that reads back as the same number.
    public var atDecimals: Int?
    /// JSONL: the `at` texts that neither rule above gives back (`1.7e9`), by seq.
    public var atText: [Int64: String]
    /// Redux DevTools: the ids of the actions the export marked as skipped. They are imported
    /// like the others; DevTools already gave them the state before them.
    public var skippedActionIds: [Int64]
    /// Redux DevTools: the reducer errors of `computedStates`, by seq.
    public var errors: [Int64: String]

    /// An import's record with every member at its default.
    public init(format: ImportFormat, file: String? = nil, importedAt: Double? = nil) {
        self.format = format
        self.file = file
        self.importedAt = importedAt
        syntheticInitial = false
        fields = nil
        untimed = []
        atDecimals = nil
        atText = [:]
        skippedActionIds = []
        errors = [:]
    }

    /// Reads the `import` member of a session's meta; `nil` when the session was not imported
    /// or the member is not one this build understands. Unknown members are ignored.
    public init?(sessionMeta meta: JSONValue) {
        guard let object = meta["import"]?.objectValue,
              let formatName = object["format"]?.stringValue,
              let format = ImportFormat(rawValue: formatName) else { return nil }
        self.init(format: format, file: object["file"]?.stringValue, importedAt: object["importedAt"]?.numberValue?.doubleValue)
        syntheticInitial = object["syntheticInitial"]?.boolValue ?? false
        fields = object["fields"]?.arrayValue?.compactMap(\.stringValue)
        untimed = (object["untimed"]?.arrayValue ?? []).compactMap { range in
            guard let bounds = range.arrayValue, bounds.count == 2,
                  let lower = bounds[0].numberValue?.int64Value, let upper = bounds[1].numberValue?.int64Value,
                  lower <= upper else { return nil }
            return lower...upper
        }
        atDecimals = object["atDecimals"]?.numberValue?.intValue
        atText = Self.seqKeyed(object["atText"])
        skippedActionIds = (object["skippedActionIds"]?.arrayValue ?? []).compactMap { $0.numberValue?.int64Value }
        errors = Self.seqKeyed(object["errors"])
    }

    /// The `import` member, defaults left out.
    public var json: JSONValue {
        var object: JSONObject = ["format": .string(format.rawValue)]
        if let file { object["file"] = .string(file) }
        if let importedAt, let number = JSONNumber(importedAt) { object["importedAt"] = .number(number) }
        if format == .jsonl { object["syntheticInitial"] = .bool(syntheticInitial) }
        if let fields { object["fields"] = .array(fields.map { .string($0) }) }
        if !untimed.isEmpty {
            object["untimed"] = .array(untimed.map { [.number(JSONNumber($0.lowerBound)), .number(JSONNumber($0.upperBound))] })
        }
        if let atDecimals { object["atDecimals"] = .number(JSONNumber(atDecimals)) }
        if !atText.isEmpty { object["atText"] = Self.seqKeyedJSON(atText) }
        if !skippedActionIds.isEmpty { object["skippedActionIds"] = .array(skippedActionIds.map { .number(JSONNumber($0)) }) }
        if !errors.isEmpty { object["errors"] = Self.seqKeyedJSON(errors) }
        return .object(object)
    }

    /// The session meta that holds this record: `{"import": …}`.
    public var sessionMeta: JSONValue { ["import": json] }

    /// Whether seq `seq` was imported without a time.
    public func isUntimed(_ seq: Int64) -> Bool {
        // The ranges are sorted and disjoint: find the last one that starts at or before `seq`.
        var low = 0
        var high = untimed.count
        while low < high {
            let middle = (low + high) / 2
            if untimed[middle].lowerBound <= seq { low = middle + 1 } else { high = middle }
        }
        return low > 0 && untimed[low - 1].contains(seq)
    }

    /// Records that `seq` had no time, extending the last range when it is adjacent.
    mutating func markUntimed(_ seq: Int64) {
        if let last = untimed.last, last.upperBound + 1 == seq {
            untimed[untimed.count - 1] = last.lowerBound...seq
        } else {
            untimed.append(seq...seq)
        }
    }

    private static func seqKeyed(_ value: JSONValue?) -> [Int64: String] {
        var result: [Int64: String] = [:]
        for (key, value) in value?.objectValue ?? [:] {
            if let seq = Int64(key), let text = value.stringValue { result[seq] = text }
        }
        return result
    }

    private static func seqKeyedJSON(_ map: [Int64: String]) -> JSONValue {
        .object(JSONObject(map.sorted { $0.key < $1.key }.map { (String($0.key), JSONValue.string($0.value)) }))
    }
}
