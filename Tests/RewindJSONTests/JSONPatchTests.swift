import RewindJSON
import Testing
import RewindTestSupport

@Suite("JSONPatch", .ownThreads)
struct JSONPatchTests {
    func patch(_ text: String) throws -> JSONPatch {
        try JSONPatch(json: JSONValue(parsing: text))
    }

    @Test("reads, applies and writes back every operation")
    func allOperations() throws {
        var doc = try JSONValue(parsing: #"{"a":{"b":[1,2,3]},"c":"x"}"#)
        let p = try patch("""
        [{"op":"test","path":"/c","value":"x"},
         {"op":"add","path":"/a/b/1","value":9},
         {"op":"add","path":"/a/b/-","value":4},
         {"op":"remove","path":"/a/b/0"},
         {"op":"replace","path":"/c","value":{"d":true}},
         {"op":"copy","from":"/a/b","path":"/e"},
         {"op":"move","from":"/c/d","path":"/f"}]
        """)
        try doc.apply(p)
        #expect(doc == (try JSONValue(parsing: #"{"a":{"b":[9,2,3,4]},"c":{},"e":[9,2,3,4],"f":true}"#)))
        #expect(try JSONPatch(json: p.json) == p)
        #expect(p.operations[6].json.serialized() == #"{"op":"move","from":"/c/d","path":"/f"}"#)
        #expect(p.operations[1].json.serialized() == #"{"op":"add","path":"/a/b/1","value":9}"#)
    }

    @Test("applying with the inverse: the inverse takes the result back; a failed patch changes nothing")
    func applyReturningInverse() throws {
        let original = try JSONValue(parsing: #"{"a":{"b":[1,2,3]},"c":"x","g":{"h":1}}"#)
        var doc = original
        let p = try patch("""
        [{"op":"test","path":"/c","value":"x"},
         {"op":"add","path":"/a/b/1","value":9},
         {"op":"add","path":"/a/b/-","value":4},
         {"op":"remove","path":"/a/b/0"},
         {"op":"replace","path":"/c","value":{"d":true}},
         {"op":"copy","from":"/a/b","path":"/e"},
         {"op":"move","from":"/c/d","path":"/f"},
         {"op":"remove","path":"/g"},
         {"op":"add","path":"","value":{"root":[1,{"x":2}]}},
         {"op":"add","path":"/root/1/y","value":3}]
        """)
        let inverse = try doc.applyReturningInverse(p)
        #expect(doc == (try p.apply(to: original)))
        var back = doc
        try back.apply(inverse)
        #expect(back == original)
        #expect(back.stableHash == original.stableHash)
        #expect(try JSONPatch(json: inverse.json) == inverse)

        var untouched = original
        #expect(throws: JSONPatchError.self) {
            _ = try untouched.applyReturningInverse(try self.patch(#"[{"op":"remove","path":"/c"},{"op":"remove","path":"/zz"}]"#))
        }
        #expect(untouched == original)
    }

    @Test("an object member added at an existing key replaces it in place")
    func addReplacesMember() throws {
        var doc = try JSONValue(parsing: #"{"a":1,"b":2}"#)
        try doc.apply(patch(#"[{"op":"add","path":"/a","value":3}]"#))
        #expect(doc.serialized() == #"{"a":3,"b":2}"#)
    }

    @Test("the whole document can be added, replaced and tested")
    func rootOperations() throws {
        var doc: JSONValue = ["a": 1]
        try doc.apply(patch(#"[{"op":"test","path":"","value":{"a":1}},{"op":"replace","path":"","value":[1]},{"op":"add","path":"","value":"s"}]"#))
        #expect(doc == "s")
    }

    @Test("malformed operations are reported with their index", arguments: [
        (#"{"op":"add"}"#, "the patch", "a JSON patch must be an array of operations, found object"),
        (#"[{"op":"test","path":"","value":1},3]"#, "operation 1", "an operation must be an object, found number"),
        (#"[{"path":"/a"}]"#, "operation 0", "missing 'op' member"),
        (#"[{"op":1,"path":"/a"}]"#, "operation 0", "'op' must be a string, found number"),
        (#"[{"op":"spam","path":"/a"}]"#, "operation 0", "unknown op 'spam' (expected add, remove, replace, move, copy or test)"),
        (#"[{"op":"add","value":1}]"#, "operation 0 (add)", "missing 'path' member"),
        (#"[{"op":"add","path":null,"value":1}]"#, "operation 0 (add)", "'path' must be a string, found null"),
        (#"[{"op":"add","path":"a","value":1}]"#, "operation 0 (add)", "'path' is not a JSON pointer: must be empty or start with '/'"),
        (#"[{"op":"remove","path":"/a"},{"op":"replace","path":"/b"}]"#, "operation 1 (replace /b)", "missing 'value' member"),
        (#"[{"op":"move","path":"/b"}]"#, "operation 0 (move /b)", "missing 'from' member"),
        (#"[{"op":"copy","path":"/b","from":"x~"}]"#, "operation 0 (copy /b)", "'from' is not a JSON pointer: must be empty or start with '/'"),
    ])
    func malformed(text: String, label: String, message: String) throws {
        let json = try JSONValue(parsing: text)
        do {
            _ = try JSONPatch(json: json)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.operationLabel == label)
            #expect(error.message == message)
        }
    }

    @Test("failures name the operation, its path and why", arguments: [
        (#"[{"op":"test","path":"/a","value":{}},{"op":"replace","path":"/x/y","value":1}]"#,
         "operation 1 (replace /x/y): /x does not exist"),
        (#"[{"op":"replace","path":"/a/b","value":1}]"#, "operation 0 (replace /a/b): path does not exist"),
        (#"[{"op":"remove","path":"/a/c"}]"#, "operation 0 (remove /a/c): path does not exist"),
        (#"[{"op":"add","path":"/l/5","value":1}]"#, "operation 0 (add /l/5): index 5 is out of bounds for the array at /l (2 elements)"),
        (#"[{"op":"remove","path":"/l/2"}]"#, "operation 0 (remove /l/2): index 2 is out of bounds for the array at /l (2 elements)"),
        (#"[{"op":"add","path":"/l/01","value":1}]"#, "operation 0 (add /l/01): '01' is not an index into the array at /l"),
        (#"[{"op":"remove","path":"/l/-"}]"#, "operation 0 (remove /l/-): '-' names no element of the array at /l (only add may use it)"),
        (#"[{"op":"add","path":"/n/x","value":1}]"#, "operation 0 (add /n/x): /n is a number, not an object or array"),
        (#"[{"op":"add","path":"/a/x/y","value":1}]"#, "operation 0 (add /a/x/y): /a/x does not exist"),
        (#"[{"op":"test","path":"/n","value":"3"}]"#, "operation 0 (test /n): test failed: the value there is 3"),
        (#"[{"op":"move","from":"/a","path":"/a/b"}]"#, "operation 0 (move /a → /a/b): cannot move a value into one of its own descendants"),
        (#"[{"op":"move","from":"/zz","path":"/b"}]"#, "operation 0 (move /zz → /b): 'from' location does not exist"),
        (#"[{"op":"copy","from":"/zz/y","path":"/b"}]"#, "operation 0 (copy /zz/y → /b): 'from' location does not exist: /zz does not exist"),
        (#"[{"op":"remove","path":""}]"#, #"operation 0 (remove ""): cannot remove the whole document"#),
    ])
    func failures(text: String, message: String) throws {
        let original = try JSONValue(parsing: #"{"a":{},"l":[1,2],"n":3}"#)
        var doc = original
        let p = try patch(text)
        #expect(throws: JSONPatchError.self) { try doc.apply(p) }
        do {
            try doc.apply(p)
        } catch {
            #expect(error.description == message)
        }
        #expect(doc == original)
        #expect(doc.serialized() == original.serialized())
    }

    @Test("a failing operation undoes the ones before it, keeping member order")
    func atomic() throws {
        let original = try JSONValue(parsing: #"{"a":1,"b":{"c":[1,2,3]},"d":"x","e":[{"f":1}]}"#)
        var doc = original
        let p = try patch("""
        [{"op":"remove","path":"/a"},
         {"op":"add","path":"/b/c/1","value":"new"},
         {"op":"remove","path":"/b/c/0"},
         {"op":"replace","path":"/d","value":[1]},
         {"op":"move","from":"/e/0/f","path":"/g"},
         {"op":"copy","from":"/b","path":"/h"},
         {"op":"add","path":"/a","value":"re-added"},
         {"op":"add","path":"/e/0","value":0},
         {"op":"move","from":"/b/c","path":"/d"},
         {"op":"test","path":"/g","value":2}]
        """)
        do {
            try doc.apply(p)
            Issue.record("the test operation should fail")
        } catch {
            #expect(error.index == 9)
            #expect(error.op == "test")
        }
        #expect(doc == original)
        #expect(doc.serialized() == original.serialized())
    }

    @Test("member names that differ only in Unicode normalization are different pointers")
    func canonicallyEquivalentTokens() throws {
        // "\u{E9}" and "e\u{301}" are equal to Swift's `==` but name different JSON members:
        // moving from one to the other (or inside the other) is neither a no-op nor a move into
        // the value's own descendant.
        let precomposed = JSONPointer(tokens: ["\u{E9}"]), decomposed = JSONPointer(tokens: ["e\u{301}"])
        #expect(precomposed != decomposed)
        #expect(!precomposed.overlaps(decomposed) && !precomposed.isAncestor(of: decomposed.appending("x")))
        #expect(precomposed < decomposed || decomposed < precomposed)

        var doc: JSONValue = ["\u{E9}": 1]
        try doc.apply(JSONPatch([.move(from: precomposed, path: decomposed)]))
        #expect(doc == ["e\u{301}": 1])

        doc = ["\u{E9}": 1, "e\u{301}": [:]]
        try doc.apply(JSONPatch([.move(from: precomposed, path: decomposed.appending("x"))]))
        #expect(doc == ["e\u{301}": ["x": 1]])
    }

    @Test("apply(to:) leaves its argument alone")
    func applyToCopy() throws {
        let original: JSONValue = ["a": [1, 2]]
        let result = try patch(#"[{"op":"add","path":"/a/-","value":3}]"#).apply(to: original)
        #expect(result == ["a": [1, 2, 3]])
        #expect(original == ["a": [1, 2]])
    }

    @Test("operations mutate in place: the containers on the path keep their buffers")
    func inPlace() throws {
        var big: [JSONValue] = (0..<10_000).map { .object(["id": .number(JSONNumber($0)), "v": [1, 2]]) }
        big.reserveCapacity(20_000)
        var doc: JSONValue = ["items": .array(big), "other": ["x": 1]]
        big = []
        func itemsBuffer(_ doc: JSONValue) -> UnsafeRawPointer? {
            doc["items"]!.arrayValue!.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        }
        let before = itemsBuffer(doc)
        try doc.apply(patch("""
        [{"op":"replace","path":"/items/500/v/0","value":9},
         {"op":"add","path":"/items/-","value":0},
         {"op":"remove","path":"/items/0"},
         {"op":"move","from":"/items/1","path":"/items/5"}]
        """))
        #expect(itemsBuffer(doc) == before)
        #expect(doc["items"]?[499]?["v"] == [9, 2])
        #expect(doc["items"]?.arrayValue?.count == 10_000)
    }
}
