import Foundation
import RewindJSON
import RewindServer
import RewindWire

/// What the fuzzer drives. Each target takes any bytes; a broken promise stops the process
/// (`fail`), which libFuzzer reports as a crash and `rewind-fuzz replay` as a failed input.
enum FuzzTarget: String, CaseIterable {
    /// The JSON parser: parse, then print and parse back to an equal value with the same hash.
    case json
    /// The patch engine: `[document, patch]` applies within limits and its inverse undoes it;
    /// `[a, b]` diffs to a patch that takes a to b and back.
    case patch
    /// The number normalizer: any number text compares, hashes and converts without trapping, and
    /// its canonical text is an equal number.
    case number
    /// The server's `/app` and `/inspect` handlers, in-process: each line is one message, to
    /// `/app` when it starts with `A`, to `/inspect` when it starts with `I`. An `/app` event
    /// the server would forward to inspectors as it came must read as the push it would build.
    case server
    /// What a client takes from a server (the recorder's link, `rewind tail`): see
    /// ``client(_:)``.
    case client

    func run(_ bytes: [UInt8]) {
        switch self {
        case .json: Self.json(bytes)
        case .patch: Self.patch(bytes)
        case .number: Self.number(bytes)
        case .server: Self.server(bytes)
        case .client: Self.client(bytes)
        }
    }

    /// Whether the libFuzzer entry point has read `REWIND_FUZZ_TARGET`.
    nonisolated(unsafe) static var chosen = false

    /// The input being replayed (`rewind-fuzz replay`), named when a target fails.
    nonisolated(unsafe) static var currentInput = ""

    static func fail(_ message: @autoclosure () -> String) -> Never {
        fatalError("fuzz: " + message() + (currentInput.isEmpty ? "" : " (input \(currentInput))"))
    }

    static func json(_ bytes: [UInt8]) {
        guard let value = try? JSONValue(parsing: bytes) else { return }
        let compact = value.serializedBytes(.compact)
        guard let again = try? JSONValue(parsing: compact) else { fail("the printed text does not parse: \(compact.count) bytes") }
        if again != value { fail("the printed text parses to another value") }
        if again.stableHash != value.stableHash { fail("equal values hash differently") }
        _ = value.serializedBytes(.pretty)
        _ = value.measure()
    }

    static let limits = JSONPatchLimits(maxDepth: 200, maxAddedBytes: 1 << 20)

    static func patch(_ bytes: [UInt8]) {
        guard case .array(let parts)? = try? JSONValue(parsing: bytes), parts.count >= 2 else { return }
        let document = parts[0]
        if let patch = try? JSONPatch(json: parts[1]) {
            var state = document
            if let inverse = try? state.applyReturningInverse(patch, limits: limits) {
                var back = state
                do { try back.apply(inverse) } catch { fail("the inverse does not apply: \(error)") }
                if back != document { fail("the inverse does not lead back") }
            } else if state != document {
                fail("a patch that failed changed the document")
            }
        }
        // Diffing two values of bounded depth: forward and inverse lead across.
        guard document.measure(depthBudget: 200).depth <= 200, parts[1].measure(depthBudget: 200).depth <= 200 else { return }
        let diff = JSONDiff(from: document, to: parts[1])
        do {
            if try diff.forward.apply(to: document) != parts[1] { fail("the diff does not lead to the target") }
            if try diff.inverse.apply(to: parts[1]) != document { fail("the diff's inverse does not lead back") }
        } catch {
            fail("the diff does not apply: \(error)")
        }
    }

    static func number(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self), let number = JSONNumber(text: text) else { return }
        _ = number.int64Value
        _ = number.uint64Value
        _ = number.doubleValue
        _ = number.hashValue
        guard let canonical = JSONNumber(text: number.canonicalText) else { fail("canonical text \(number.canonicalText) is not a number") }
        if canonical != number { fail("\(text) differs from its canonical text \(number.canonicalText)") }
        if canonical.hashValue != number.hashValue { fail("\(text) and \(number.canonicalText) hash differently") }
        if let i = number.int64Value, JSONNumber(i) != number { fail("\(text) differs from its Int64 \(i)") }
        _ = JSONValue.number(number).stableHash
    }

    nonisolated(unsafe) static var harness: ServerHarness?
    /// The server target's log, its WAL and its writer's lock, one folder a process.
    static let serverFolder = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-fuzz-\(getpid())")

    /// Closes the server target's log and removes its folder (the end of a replay).
    static func closeServer() {
        harness = nil
        try? FileManager.default.removeItem(at: serverFolder)
    }

    /// An app frame the server would forward to inspectors as it came must read as the push the
    /// server would otherwise build from the event it parsed.
    static func forwardingAgrees(_ frame: [UInt8]) {
        guard let json = try? parseFrame(frame), case .event(let event)? = try? AppMessage(json: json),
              case .object(let object) = json, InspectorPush.canForward(event: object) else { return }
        let built = InspectorPush.event(session: "fuzz \"s\"", sessionID: 7, actionType: "t\u{1b}", event: event)
        guard let bytes = InspectorPush.eventBytes(forwarding: frame, session: "fuzz \"s\"", sessionID: 7, actionType: "t\u{1b}") else {
            fail("an event frame the server forwards does not end its object")
        }
        guard let value = try? JSONValue(parsing: bytes), let read = try? InspectorPush(json: value) else {
            fail("a forwarded push does not parse: \(bytes.count) bytes")
        }
        if read != built { fail("a forwarded push reads as another event than the one the server parsed") }
    }

    static func server(_ bytes: [UInt8]) {
        if harness == nil {
            try? FileManager.default.removeItem(at: serverFolder)
            do {
                try FileManager.default.createDirectory(at: serverFolder, withIntermediateDirectories: true)
                harness = try ServerHarness(logPath: serverFolder.appendingPathComponent("fuzz.db").path)
            } catch {
                fail("cannot open the fuzz log in \(serverFolder.path): \(error)")
            }
            // A fuzzing run ends by exit; its folder goes then (a crash keeps it, to look into).
            atexit { try? FileManager.default.removeItem(at: FuzzTarget.serverFolder) }
        }
        guard let harness else { return }
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let message = Array(line.dropFirst())
            switch line.first {
            case UInt8(ascii: "A"):
                forwardingAgrees(message)
                harness.app(message)
            case UInt8(ascii: "I"): harness.inspect(message)
            default: break
            }
        }
    }
}
