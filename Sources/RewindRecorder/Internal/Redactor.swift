import Foundation
import RewindJSON

/// Keeps secrets out of everything the recorder writes or sends.
///
/// Three rules, applied to every state and every action:
/// - the values at the redaction pointers become `"<redacted>"` (`/auth/token`);
/// - the values of members with a redacted key, at any depth, do too (`password`, `token`;
///   the keys compare without regard to case);
/// - every string found under those pointers or keys in the state after an action, or in any
///   state before it, is a secret: any string in the action or the state equal to one becomes
///   `"<redacted>"`, and
///   a secret of 6 characters or more inside a longer string is cut out of it
///   (`"Bearer <redacted>"`). The token a `.login(user:token:)` action carries is the token the
///   state keeps at `/auth/token`, whatever the action's shape.
struct Redactor: Sendable {
    static let placeholder: JSONValue = "<redacted>"
    static let placeholderText = "<redacted>"
    /// Secrets at least this long are also cut out of longer strings; shorter ones only replace
    /// equal strings (a 2-letter secret inside every word would redact too much).
    static let minimumSubstring = 6

    let pointers: [JSONPointer]
    /// Lowercased.
    let keys: Set<String>

    /// Parses `paths`; throws naming the first that is not a JSON Pointer.
    init(_ paths: [String], keys: [String] = []) throws(RecorderError) {
        var pointers: [JSONPointer] = []
        for path in paths {
            do {
                pointers.append(try JSONPointer(path))
            } catch {
                throw RecorderError(kind: .invalidRedactionPath(path), message: "\(error)")
            }
        }
        self.pointers = pointers
        self.keys = Set(keys.map { $0.lowercased() })
    }

    var isEmpty: Bool { pointers.isEmpty && keys.isEmpty }

    /// The strings `value` keeps under the redaction pointers and keys.
    func secrets(in value: JSONValue) -> Set<String> {
        guard !isEmpty else { return [] }
        var found: Set<String> = []
        for pointer in pointers {
            if let held = pointer.resolve(in: value) { Self.collectStrings(held, into: &found) }
        }
        if !keys.isEmpty { collectUnderKeys(value, into: &found) }
        found.remove("")
        found.remove(Self.placeholderText)
        return found
    }

    /// Applies the three rules to `value`, with `secrets` from the states around it.
    func redact(_ value: inout JSONValue, secrets: Set<String> = []) {
        guard !isEmpty else { return }
        for pointer in pointers {
            if pointer.isRoot {
                value = Self.placeholder
            } else if pointer.resolve(in: value) != nil {
                try? value.apply(.replace(path: pointer, value: Self.placeholder))
            }
        }
        let long = secrets.filter { $0.count >= Self.minimumSubstring }.sorted { $0.count > $1.count }
        value = rewrite(value, secrets: secrets, long: long)
    }

    // MARK: Walking (iterative: a value may nest as deep as the parser allows)

    private static func collectStrings(_ value: JSONValue, into found: inout Set<String>) {
        var stack = [value]
        while let next = stack.popLast() {
            switch next {
            case .string(let text): found.insert(text)
            case .array(let items): stack.append(contentsOf: items)
            case .object(let object): stack.append(contentsOf: object.values)
            default: break
            }
        }
    }

    private func collectUnderKeys(_ value: JSONValue, into found: inout Set<String>) {
        var stack = [value]
        while let next = stack.popLast() {
            switch next {
            case .array(let items): stack.append(contentsOf: items)
            case .object(let object):
                for (key, member) in object {
                    if keys.contains(key.lowercased()) { Self.collectStrings(member, into: &found) } else { stack.append(member) }
                }
            default: break
            }
        }
    }

    /// `value` with redacted keys' values and secrets replaced; containers are rebuilt only on
    /// the paths where something changed.
    private func rewrite(_ value: JSONValue, secrets: Set<String>, long: [String]) -> JSONValue {
        guard !keys.isEmpty || !secrets.isEmpty else { return value }
        // Post-order over an explicit stack: each frame rebuilds its container from its children.
        enum Frame {
            case visit(JSONValue)
            case array(count: Int)
            case object(keys: [String])
        }
        var work: [Frame] = [.visit(value)]
        var results: [JSONValue] = []
        while let frame = work.popLast() {
            switch frame {
            case .visit(let node):
                switch node {
                case .string(let text):
                    results.append(scrub(text, secrets: secrets, long: long))
                case .array(let items):
                    work.append(.array(count: items.count))
                    for item in items.reversed() { work.append(.visit(item)) }
                case .object(let object):
                    var names: [String] = []
                    var children: [Frame] = []
                    for (key, member) in object {
                        names.append(key)
                        children.append(keys.contains(key.lowercased()) ? .visit(Self.placeholder) : .visit(member))
                    }
                    work.append(.object(keys: names))
                    for child in children.reversed() { work.append(child) }
                default:
                    results.append(node)
                }
            case .array(let count):
                let items = Array(results.suffix(count))
                results.removeLast(count)
                results.append(.array(items))
            case .object(let names):
                let members = Array(results.suffix(names.count))
                results.removeLast(names.count)
                results.append(.object(JSONObject(zip(names, members))))
            }
        }
        return results.last ?? value
    }

    private func scrub(_ text: String, secrets: Set<String>, long: [String]) -> JSONValue {
        if text == Self.placeholderText { return .string(text) }
        if secrets.contains(text) { return Self.placeholder }
        var scrubbed = text
        for secret in long where scrubbed.contains(secret) {
            scrubbed = scrubbed.replacingOccurrences(of: secret, with: Self.placeholderText)
        }
        return .string(scrubbed)
    }
}
