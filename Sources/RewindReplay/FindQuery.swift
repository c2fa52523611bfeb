import Foundation
import RewindJSON

/// What `find` asks of the value at a path, at every seq of a session.
///
/// ```swift
/// let condition = try FindCondition.lessThan(0)
/// condition.holds(.number(-3))   // true
/// ```
public enum FindCondition: Sendable, Equatable, CustomStringConvertible {
    /// The value equals this JSON (JSON equality: `1` and `1.0` are equal).
    case isEqual(JSONValue)
    /// There is a value and it does not equal this JSON.
    case isNot(JSONValue)
    /// The value is a number greater than this.
    case greaterThan(Double)
    /// The value is a number less than this.
    case lessThan(Double)
    /// The value is a string that this regular expression matches somewhere.
    case matches(FindPattern)
    /// There is a value at the path.
    case exists
    /// There is no value at the path.
    case missing
    /// The value differs from the one before (each change is a hit of its own).
    case changed

    /// Whether the condition holds for `value` (`nil`: nothing at the path). ``changed`` is
    /// judged by ``FindScan`` from two values, and is `false` here.
    public func holds(_ value: JSONValue?) -> Bool {
        holds(value, deadline: nil) ?? false
    }

    /// Whether the condition holds, or `nil` when a regular expression ran past `deadline`
    /// inside its match.
    public func holds(_ value: JSONValue?, deadline: ContinuousClock.Instant?) -> Bool? {
        switch self {
        case .isEqual(let expected): return value == expected
        case .isNot(let expected): return value != nil && value != expected
        case .greaterThan(let bound):
            guard case .number(let number)? = value else { return false }
            return number.doubleValue > bound
        case .lessThan(let bound):
            guard case .number(let number)? = value else { return false }
            return number.doubleValue < bound
        case .matches(let pattern):
            guard case .string(let text)? = value else { return false }
            return pattern.matches(text, deadline: deadline)
        case .exists: return value != nil
        case .missing: return value == nil
        case .changed: return false
        }
    }

    public var description: String {
        switch self {
        case .isEqual(let value): "is \(value.serialized())"
        case .isNot(let value): "is not \(value.serialized())"
        case .greaterThan(let bound): "> \(JSONNumber(bound).map { $0.text } ?? String(bound))"
        case .lessThan(let bound): "< \(JSONNumber(bound).map { $0.text } ?? String(bound))"
        case .matches(let pattern): "matches /\(pattern.source)/"
        case .exists: "exists"
        case .missing: "is missing"
        case .changed: "changed"
        }
    }
}

/// A regular expression for ``FindCondition/matches(_:)``, bounded: at most 256 bytes of
/// pattern (UTF-8), only the first 65,536 characters of a string are searched, and matching
/// takes time linear in the string whatever the pattern (a Thompson NFA, no backtracking; the
/// syntax is in Docs/CLI.md, `find`). A deadline is honoured inside one match too.
public struct FindPattern: Sendable, Equatable {
    /// The longest pattern, in UTF-8 bytes.
    public static let maxPatternLength = 256
    /// The most characters (Unicode scalars) of a string that are searched.
    public static let maxSubjectLength = 64 * 1024
    /// How much of a refused pattern an error quotes.
    static let quotedPrefix = 32

    /// The pattern as given.
    public let source: String
    private let regex: LinearRegex

    /// Compiles `source`; a pattern too long or that find cannot run is one sentence, which
    /// quotes at most the pattern's first 32 characters.
    public init(_ source: String) throws(FindQueryError) {
        let bytes = source.utf8.count
        guard bytes <= Self.maxPatternLength else {
            throw FindQueryError("the pattern \(Self.quoted(source)) is \(bytes) bytes; at most \(Self.maxPatternLength) are allowed")
        }
        do {
            regex = try LinearRegex(source)
        } catch {
            throw FindQueryError("the pattern \(Self.quoted(source)) is not a regular expression find can run: \(error.message)")
        }
        self.source = source
    }

    /// Whether the pattern matches somewhere in `text` (its first ``maxSubjectLength``
    /// characters).
    public func matches(_ text: String) -> Bool {
        matches(text, deadline: nil) ?? false
    }

    /// Whether the pattern matches somewhere in `text`; `nil` when `deadline` passed first.
    public func matches(_ text: String, deadline: ContinuousClock.Instant?) -> Bool? {
        var subject: [Unicode.Scalar] = []
        subject.reserveCapacity(min(text.utf8.count, Self.maxSubjectLength))
        for scalar in text.unicodeScalars {
            guard subject.count < Self.maxSubjectLength else { break }
            subject.append(scalar)
        }
        return regex.firstMatch(in: subject, deadline: deadline)
    }

    /// `/pattern/` cut to its first 32 characters, with control characters as `\u` escapes.
    static func quoted(_ source: String) -> String {
        var shown = ""
        var count = 0
        for scalar in source.unicodeScalars {
            guard count < quotedPrefix else {
                shown += "…"
                break
            }
            count += 1
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
                || (0x2066...0x2069).contains(scalar.value) {
                let hex = String(scalar.value, radix: 16)
                shown += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return "/" + shown + "/"
    }

    public static func == (lhs: FindPattern, rhs: FindPattern) -> Bool { lhs.source == rhs.source }
}

/// A `find` query that cannot run: one sentence.
public struct FindQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// One place where the condition started or stopped holding, or where the value changed.
public struct FindHit: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// The condition holds from this seq on (it did not hold before, or this is seq 0).
        case starts
        /// The condition no longer holds from this seq on (with `all`).
        case stops
        /// The value changed at this seq (``FindCondition/changed``).
        case changed
    }

    public var kind: Kind
    public var seq: Int64
    public var at: Date
    public var actionType: String
    public var action: JSONValue
    /// The value at the path after this seq; `nil` when nothing is there.
    public var value: JSONValue?
    /// The value before this seq (for ``Kind/changed`` and ``Kind/stops``).
    public var previous: JSONValue?

    public init(kind: Kind, seq: Int64, at: Date, actionType: String, action: JSONValue, value: JSONValue?, previous: JSONValue?) {
        self.kind = kind
        self.seq = seq
        self.at = at
        self.actionType = actionType
        self.action = action
        self.value = value
        self.previous = previous
    }
}

/// What a find returned: its hits and how far it got.
public struct FindResult: Sendable, Equatable {
    public var hits: [FindHit]
    /// The last seq scanned.
    public var scannedThrough: Int64
    /// The session's last seq when the scan began.
    public var lastSeq: Int64
    /// `false` when the scan stopped early: at the hit limit or the time budget.
    public var complete: Bool
    /// Why it stopped early.
    public var stoppedBecause: String?
    /// Whether the path held a value in any state scanned.
    public var pathExisted = true
    /// When the whole session was scanned and the path never held a value: the existing path
    /// nearest to it (``JSONPointer/nearest(to:in:)``) in the last state or the first, whichever
    /// goes deeper.
    public var nearestPath: JSONPointer?
}

/// The state machine of a find, fed one seq at a time: which events are hits. The values are
/// resolved only after the events that may change the value at the path.
public struct FindScan {
    public let path: JSONPointer
    public let condition: FindCondition
    /// Also report where the condition stops holding.
    public var all = false
    /// Passed to each match of a regular expression, which stops inside the match once it
    /// passes.
    public var deadline: ContinuousClock.Instant?
    /// A condition ran past ``deadline``: the last value was not judged, and the scan must stop.
    public private(set) var ranOutOfTime = false
    private(set) var holding = false
    private(set) var value: JSONValue?
    /// Whether the path held a value at seq 0 or after any seq stepped.
    public private(set) var valueSeen = false
    private var started = false

    public init(path: JSONPointer, condition: FindCondition, all: Bool = false) {
        self.path = path
        self.condition = condition
        self.all = all
    }

    /// Whether an operation may change the value at `path`: it acts on the path, an ancestor
    /// or a descendant, or it inserts or removes an element of an array that holds the path
    /// (shifting the elements after it).
    public func mayChange(_ operation: JSONPatchOperation) -> Bool {
        if operation.path.overlaps(path) { return true }
        if let from = operation.from, from.overlaps(path) { return true }
        switch operation {
        case .add, .remove, .move, .copy:
            if let parent = operation.path.parent, parent.isAncestor(of: path) { return true }
            if let parent = operation.from?.parent, parent.isAncestor(of: path) { return true }
            return false
        case .replace, .test:
            return false
        }
    }

    /// Seq 0: the initial value. Returns the hit, if the condition holds there.
    public mutating func start(value: JSONValue?) -> FindHit.Kind? {
        started = true
        self.value = value
        if value != nil { valueSeen = true }
        holding = judge(value)
        return holding && condition != .changed && !ranOutOfTime ? .starts : nil
    }

    /// The value after a later seq (only needed when the seq may have changed it).
    public mutating func step(value newValue: JSONValue?) -> (kind: FindHit.Kind, previous: JSONValue?)? {
        let previous = value
        value = newValue
        if newValue != nil { valueSeen = true }
        if condition == .changed {
            return newValue != previous ? (.changed, previous) : nil
        }
        let now = judge(newValue)
        if ranOutOfTime { return nil }
        defer { holding = now }
        if now && !holding { return (.starts, previous) }
        if !now && holding && all { return (.stops, previous) }
        return nil
    }

    private mutating func judge(_ value: JSONValue?) -> Bool {
        guard let holds = condition.holds(value, deadline: deadline) else {
            ranOutOfTime = true
            return false
        }
        return holds
    }
}
