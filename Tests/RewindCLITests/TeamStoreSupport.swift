import Foundation
import RewindJSON
import RewindPostgres
import RewindTestSupport

/// Running `rewind` against a log that is a file or a team database, and the sessions the
/// team-store tests record.
enum TeamStore {
    /// Runs `rewind arguments… --db log` with `TZ=UTC`, no colour and no REWIND_DB of the
    /// environment's.
    static func run(_ arguments: [String], db log: String, stdin: Data? = nil) throws -> CLIRunner.Output {
        try CLIRunner.run(arguments + ["--db", log], stdin: stdin, environment: ["TZ": "UTC", "NO_COLOR": "1", "REWIND_DB": ""])
    }

    /// A fresh database on the tests' cluster (its URL, with the password).
    static func database(_ prefix: String) throws -> String {
        try PostgresTestCluster.shared().createDatabase(prefix: prefix)
    }

    static func drop(_ url: String) {
        try? PostgresTestCluster.shared().dropDatabase(url)
    }

    /// `url` as Rewind names it in messages: without its password.
    static func shown(_ url: String) -> String {
        PostgresLogStore.redacted(url)
    }

    /// Whether `text` is one sentence on one line (what a command prints on stderr when it stops).
    static func isOneSentence(_ text: String) -> Bool {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.count == 2 && lines[1].isEmpty && !lines[0].isEmpty
    }
}

/// Recordings as JSONL files, written as an app's states would be: a shop with nested
/// options, keys a pointer must escape and numbers JSON cannot hold (recorded as the strings
/// the recorder writes); a todo list that grows and shrinks in the middle; a session whose
/// states are not objects.
enum ParityRecordings {
    static let start = 1_700_000_000.0

    /// The shop: 400 lines, the first its initial state.
    static func shop() -> [String] {
        var lines: [String] = []
        var cart: [JSONValue] = []
        var total = 0
        var name = "Ada"
        for seq in 0..<400 {
            var action: JSONValue? = nil
            if seq > 0 {
                switch seq % 9 {
                case 1, 4, 6:
                    let price = seq % 23 + 1
                    cart.append(["sku": .string("sku-\(seq)"), "price": .number(JSONNumber(price)),
                                 "options": ["size": .string(["S", "M", "L"][seq % 3]), "gift": .bool(seq % 2 == 0)]])
                    total += price
                    action = ["type": "cart/add", "sku": .string("sku-\(seq)"), "price": .number(JSONNumber(price))]
                case 2 where !cart.isEmpty:
                    total -= Int(cart.remove(at: cart.count / 2)["price"]?.numberValue?.int64Value ?? 0)
                    action = ["type": "cart/remove", "index": .number(JSONNumber(cart.count / 2))]
                case 3:
                    name = seq % 2 == 0 ? "Ada" : "Grace"
                    action = ["type": "user/rename", "name": .string(name), "mail": .string("\(name.lowercased())@example.com")]
                case 5:
                    action = ["type": "stats.tick+", "at": .number(JSONNumber(seq))]
                case 7 where seq % 5 == 0:
                    cart = []
                    total = 0
                    action = ["type": "checkout", "note": "Café crème, 9:30 — O'Brien (Ltd.)"]
                default:
                    action = ["type": "cart/add", "sku": .string("sku-\(seq)"), "price": 0, "ignored": true]
                }
            }
            let ratio: JSONValue = switch seq % 17 {
            case 0: "NaN"
            case 5: "Infinity"
            case 9: "-Infinity"
            default: JSONNumber(Double(total) / 8).map(JSONValue.number) ?? .null
            }
            let state: JSONValue = [
                "cart": .array(cart), "total": .number(JSONNumber(total)), "ratio": ratio,
                "user": ["name": .string(name), "email": .string("\(name.lowercased())@example.com"), "visits": .number(JSONNumber(seq / 10))],
                "a/b": ["m~n": .number(JSONNumber(seq % 4))],
            ]
            lines.append(line(action: action, state: state, at: start + Double(seq) * 0.25))
        }
        return lines
    }

    /// The todo list: 300 lines, no initial line (seq 0 is made up).
    static func todos() -> [String] {
        var lines: [String] = []
        var todos: [JSONValue] = []
        var filter = "all"
        for seq in 1...300 {
            let action: JSONValue
            if seq % 7 == 0, todos.count > 2 {
                todos.remove(at: todos.count / 2)
                action = ["type": "todo/remove", "index": .number(JSONNumber(todos.count / 2))]
            } else if seq % 11 == 0 {
                filter = filter == "all" ? "done" : "all"
                action = ["type": "filter/set", "filter": .string(filter)]
            } else if seq % 5 == 0, !todos.isEmpty {
                var todo = todos[0].objectValue ?? [:]
                todo["done"] = .bool(!(todo["done"]?.boolValue ?? false))
                todos[0] = .object(todo)
                action = ["type": "todo/toggle", "index": 0]
            } else {
                let title = seq % 13 == 0 ? "buy milk for ada@example.com" : "task \(seq)"
                todos.insert(["title": .string(title), "done": false, "tags": .array(seq % 3 == 0 ? ["home"] : [])], at: todos.count / 2)
                action = ["type": "todo/add", "title": .string(title)]
            }
            let state: JSONValue = ["todos": .array(todos), "filter": .string(filter), "meta": ["count": .number(JSONNumber(todos.count))]]
            lines.append(line(action: action, state: state, at: seq % 4 == 0 ? nil : start + 3_600 + Double(seq)))
        }
        return lines
    }

    /// States that are not objects.
    static func odd() -> [String] {
        [
            line(action: nil, state: [1, 2], at: start + 7_200),
            line(action: "push", state: [1, 2, 3], at: start + 7_201),
            line(action: ["type": "say", "text": "é ✓ \"quoted\""], state: "text", at: start + 7_202),
            line(action: JSONValue.null, state: ["x": nil], at: start + 7_203),
            line(action: ["type": "[x]"], state: ["x": ["y": [1.5, -0.0, 1e300]]], at: start + 7_204),
        ]
    }

    static func line(action: JSONValue?, state: JSONValue, at: Double?) -> String {
        var object: JSONObject = [:]
        if let action { object["action"] = action }
        object["state"] = state
        if let at { object["at"] = JSONNumber(at).map(JSONValue.number) ?? .null }
        return JSONValue.object(object).serialized(.compact)
    }

    /// Writes the three recordings into `directory`; returns their paths.
    static func write(into directory: TemporaryDirectory) throws -> [String] {
        try [("shop.jsonl", shop()), ("todos.jsonl", todos()), ("odd.jsonl", odd())].map { name, lines in
            try directory.file(name, contents: lines.map { $0 + "\n" }.joined())
        }
    }
}
