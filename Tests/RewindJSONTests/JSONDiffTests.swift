import RewindJSON
import Testing
import RewindTestSupport

@Suite("JSONDiff", .ownThreads)
struct JSONDiffTests {
    func json(_ text: String) throws -> JSONValue { try JSONValue(parsing: text) }

    /// Checks both directions and returns the forward patch as compact JSON.
    @discardableResult
    func roundTrip(_ a: JSONValue, _ b: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let diff = JSONDiff(from: a, to: b)
        #expect(try diff.forward.apply(to: a) == b, "forward: \(diff.forward)", sourceLocation: sourceLocation)
        #expect(try diff.inverse.apply(to: b) == a, "inverse: \(diff.inverse)", sourceLocation: sourceLocation)
        #expect(diff.changes.count == diff.forward.count, sourceLocation: sourceLocation)
        return diff.forward.description
    }

    @Test("equal documents give empty patches")
    func equal() throws {
        let a = try json(#"{"a":[1,{"b":null}],"c":1.0}"#)
        let b = try json(#"{"c":1,"a":[1,{"b":null}]}"#)
        let diff = JSONDiff(from: a, to: b)
        #expect(diff.isEmpty && diff.inverse.isEmpty && diff.changes.isEmpty)
    }

    @Test("small cases give the expected operations", arguments: [
        (#"1"#, #"2"#, #"[{"op":"replace","path":"","value":2}]"#),
        (#"{"a":1}"#, #"[1]"#, #"[{"op":"replace","path":"","value":[1]}]"#),
        (#"{"a":1,"b":2}"#, #"{"a":1,"c":3}"#, #"[{"op":"remove","path":"/b"},{"op":"add","path":"/c","value":3}]"#),
        (#"{"a":{"b":"x"}}"#, #"{"a":{"b":"y"}}"#, #"[{"op":"replace","path":"/a/b","value":"y"}]"#),
        (#"{"a":{"b":"x"}}"#, #"{"a":[]}"#, #"[{"op":"replace","path":"/a","value":[]}]"#),
        (#"{"a/b":{"m~n":1}}"#, #"{"a/b":{"m~n":2}}"#, #"[{"op":"replace","path":"/a~1b/m~0n","value":2}]"#),
        (#"[1,2,3]"#, #"[1,2,3,4]"#, #"[{"op":"add","path":"/3","value":4}]"#),
        (#"[1,2,3]"#, #"[0,1,2,3]"#, #"[{"op":"add","path":"/0","value":0}]"#),
        (#"[1,2,3]"#, #"[1,3]"#, #"[{"op":"remove","path":"/1"}]"#),
        (#"[1,2,3]"#, #"[1,9,3]"#, #"[{"op":"replace","path":"/1","value":9}]"#),
        (#"["a","b","c","d"]"#, #"["b","c","d","a"]"#, #"[{"op":"remove","path":"/0"},{"op":"add","path":"/3","value":"a"}]"#),
        (#"[1,2,3,4,5]"#, #"[1,3,5]"#, #"[{"op":"remove","path":"/1"},{"op":"remove","path":"/2"}]"#),
        (#"[{"a":1,"b":2}]"#, #"[{"a":1,"b":3}]"#, #"[{"op":"replace","path":"/0/b","value":3}]"#),
        (#"[{"a":1}]"#, #"[{"x":1}]"#, #"[{"op":"replace","path":"/0","value":{"x":1}}]"#),
        (#"[[1,2],[3]]"#, #"[[1,2,0],[3]]"#, #"[{"op":"add","path":"/0/2","value":0}]"#),
        (#"{"n":1.0}"#, #"{"n":1}"#, #"[]"#),
    ])
    func cases(a: String, b: String, patch: String) throws {
        #expect(try roundTrip(json(a), json(b)) == patch)
    }

    /// "\u{E9}" and "e\u{301}" are equal to Swift's `==` (canonical equivalence) but are
    /// different JSON strings and member names (RFC 8259 §8.3), as `JSONValue`'s `==` says.
    @Test("strings and keys that differ only in Unicode normalization are changes", arguments: [
        (["s": "\u{E9}"], ["s": "e\u{301}"]),
        (["\u{E9}", 1, 2], ["e\u{301}", 1, 2]),
        (["\u{E9}": 1], ["e\u{301}": 1]),
        (["k": ["\u{E9}", ["a": "\u{E9}"]]], ["k": ["e\u{301}", ["a": "e\u{301}"]]]),
    ] as [(JSONValue, JSONValue)])
    func unicodeNormalization(a: JSONValue, b: JSONValue) throws {
        #expect(a != b)
        #expect(!JSONDiff(from: a, to: b).isEmpty)
        try roundTrip(a, b)
        try roundTrip(a, JSONValue(parsing: b.serialized()))
    }

    @Test("the inverse undoes the forward operations in reverse order")
    func inverseOrder() throws {
        let diff = JSONDiff(from: try json(#"{"name":"Ada","tags":["x"]}"#), to: try json(#"{"name":"Grace","tags":[]}"#))
        #expect(diff.forward.description == #"[{"op":"replace","path":"/name","value":"Grace"},{"op":"remove","path":"/tags/0"}]"#)
        #expect(diff.inverse.description == #"[{"op":"add","path":"/tags/0","value":"x"},{"op":"replace","path":"/name","value":"Ada"}]"#)
    }

    @Test("changes read as +, - and ~ lines, removals at their old index")
    func changes() throws {
        let diff = JSONDiff(from: try json(#"{"user":{"name":"Ada"},"tags":["x","y","z"]}"#),
                            to: try json(#"{"user":{"name":"Grace"},"tags":["z","w"],"new":true}"#))
        #expect(diff.changes.map(\.description) == [
            #"~ /user/name: "Ada" → "Grace""#, #"- /tags/0: "x""#, #"- /tags/1: "y""#, #"+ /tags/1: "w""#, "+ /new: true",
        ])
        try roundTrip(try json(#"{"user":{"name":"Ada"},"tags":["x","y","z"]}"#), try json(#"{"user":{"name":"Grace"},"tags":["z","w"],"new":true}"#))
    }

    static func idList(_ count: Int, key: String = "id", skipping skipped: Int? = nil) -> JSONValue {
        .array((0..<count).filter { $0 != skipped }.map { k in
            .object([key: .number(JSONNumber(k)), "name": .string("item \(k)"), "done": .bool(k % 3 == 0)])
        })
    }

    @Test("one item inserted into a 1,000-item id list is one add", arguments: ["id", "_id"])
    func insertIntoIDList(key: String) throws {
        let a = Self.idList(1_000, key: key)
        var items = a.arrayValue!
        // Items with ids shuffle within each side of the insertion point too little to matter;
        // the insert sits in the middle so neither common head nor tail alone explains it.
        let new: JSONValue = .object([key: 5_000, "name": "new", "done": false])
        items.insert(new, at: 500)
        // Touch one neighbour so that trimming alone cannot explain the change.
        items[10] = .object([key: 10, "name": "renamed", "done": false])
        let b = JSONValue.array(items)
        let diff = JSONDiff(from: a, to: b)
        #expect(diff.forward.description
            == #"[{"op":"replace","path":"/10/name","value":"renamed"},{"op":"add","path":"/500","value":{"\#(key)":5000,"name":"new","done":false}}]"#)
        try roundTrip(a, b)
    }

    @Test("one item removed from a 1,000-item id list is one remove")
    func removeFromIDList() throws {
        let a = Self.idList(1_000), b = Self.idList(1_000, skipping: 321)
        let diff = JSONDiff(from: a, to: b)
        #expect(diff.forward.description == #"[{"op":"remove","path":"/321"}]"#)
        #expect(diff.inverse.operations == [.add(path: try JSONPointer("/321"), value: a[321]!)])
    }

    @Test("items matched by id give operations inside them, even when reordered")
    func idItemsChangeInside() throws {
        let a = try json(#"[{"id":1,"v":1},{"id":2,"v":2},{"id":3,"v":3},{"id":4,"v":4}]"#)
        let b = try json(#"[{"id":1,"v":1},{"id":3,"v":30},{"id":2,"v":2},{"id":4,"v":4,"w":0}]"#)
        let patch = try roundTrip(a, b)
        #expect(patch.contains(#""path":"/3/w""#))
        #expect(!patch.contains(#""path":"/3","#))
    }

    @Test("one field changed in a big document is one replace")
    func oneFieldInBigDocument() throws {
        var users = JSONObject()
        for k in 0..<2_000 {
            users["u\(k)"] = .object(["name": .string("user \(k)"), "scores": .array((0..<20).map { .number(JSONNumber($0 * k)) })])
        }
        let a: JSONValue = ["users": .object(users), "list": .array((0..<5_000).map { .number(JSONNumber($0)) })]
        var b = a
        try b.apply(.replace(path: try JSONPointer("/users/u1234/scores/7"), value: "changed"))
        let reparsed = try JSONValue(parsing: b.serialized())
        for target in [b, reparsed] {
            let diff = JSONDiff(from: a, to: target)
            #expect(diff.forward.description == #"[{"op":"replace","path":"/users/u1234/scores/7","value":"changed"}]"#)
            #expect(diff.inverse.description == #"[{"op":"replace","path":"/users/u1234/scores/7","value":8638}]"#)
        }
    }

    @Test("deeply nested documents diff and patch without running out of stack")
    func deepNesting() throws {
        func nested(_ leaf: JSONValue, depth: Int) -> JSONValue {
            var value = leaf
            for k in 0..<depth { value = k % 2 == 0 ? .array([0, value]) : .object(["k": value]) }
            return value
        }
        let a = nested(1, depth: 900), b = nested(2, depth: 900)
        let diff = JSONDiff(from: a, to: try JSONValue(parsing: b.serialized()))
        #expect(diff.forward.count == 1)
        #expect(diff.forward.operations.first?.path.tokens.count == 900)
        try roundTrip(a, b)
    }

    @Test("very different long arrays fall back to pairing by position, still correct")
    func veryDifferentArrays() throws {
        let a = JSONValue.array((0..<3_000).map { .number(JSONNumber($0)) })
        let b = JSONValue.array((0..<3_500).map { .number(JSONNumber($0 * 7 + 100_000)) })
        try roundTrip(a, b)
    }
}
