import RewindJSON
import Testing
import RewindTestSupport

@Suite("JSONPointer", .ownThreads)
struct JSONPointerTests {
    /// RFC 6901 section 5: every pointer of the example and the value it names.
    static let rfcDocument: JSONValue = [
        "foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5,
        "k\"l": 6, " ": 7, "m~n": 8,
    ]

    @Test("RFC 6901 examples resolve", arguments: [
        ("", nil), ("/foo", nil), ("/foo/0", "bar" as JSONValue), ("/", 0), ("/a~1b", 1), ("/c%d", 2), ("/e^f", 3),
        ("/g|h", 4), ("/i\\j", 5), ("/k\"l", 6), ("/ ", 7), ("/m~0n", 8),
    ] as [(String, JSONValue?)])
    func rfcExamples(text: String, expected: JSONValue?) throws {
        let pointer = try JSONPointer(text)
        let resolved = pointer.resolve(in: Self.rfcDocument)
        switch text {
        case "": #expect(resolved == Self.rfcDocument)
        case "/foo": #expect(resolved == ["bar", "baz"])
        default: #expect(resolved == expected)
        }
        #expect(pointer.description == text)
    }

    @Test("parses tokens and prints them back escaped", arguments: [
        ("", [String]()), ("/", [""]), ("//", ["", ""]), ("/a/b", ["a", "b"]), ("/a~1b", ["a/b"]),
        ("/m~0n", ["m~n"]), ("/~01", ["~1"]), ("/~10", ["/0"]), ("/ü/🙂", ["ü", "🙂"]), ("/-", ["-"]),
    ])
    func roundTrip(text: String, tokens: [String]) throws {
        let pointer = try JSONPointer(text)
        #expect(pointer.tokens == tokens)
        #expect(pointer.description == text)
        #expect(JSONPointer(tokens: tokens) == pointer)
    }

    @Test("rejects malformed pointers, saying where", arguments: [
        ("a", 0, JSONPointerError.Reason.missingLeadingSlash), ("a/b", 0, .missingLeadingSlash),
        ("/a~", 2, .invalidEscape), ("/a~2b", 2, .invalidEscape), ("/~/x", 1, .invalidEscape),
    ])
    func malformed(text: String, offset: Int, reason: JSONPointerError.Reason) {
        #expect(throws: JSONPointerError(pointer: text, offset: offset, reason: reason)) {
            try JSONPointer(text)
        }
    }

    @Test("error messages name the pointer and the problem")
    func errorMessage() {
        #expect(JSONPointerError(pointer: "/a~2", offset: 2, reason: .invalidEscape).description
            == #"invalid JSON pointer "/a~2": '~' at offset 2 must be followed by '0' or '1'"#)
        #expect(JSONPointerError(pointer: "a", offset: 0, reason: .missingLeadingSlash).description
            == #"invalid JSON pointer "a": must be empty or start with '/'"#)
    }

    @Test("array indices: digits only, no leading zeros", arguments: [
        ("0", 0), ("7", 7), ("10", 10), ("1234", 1234), ("01", nil), ("00", nil), ("-1", nil), ("1e0", nil),
        ("-", nil), ("", nil), (" 1", nil), ("+1", nil), ("1.0", nil), ("٣", nil), ("99999999999999999999", nil),
    ] as [(String, Int?)])
    func arrayIndex(token: String, expected: Int?) {
        #expect(JSONPointer.arrayIndex(token) == expected)
    }

    @Test("resolve follows members and indices, and finds nothing past them")
    func resolve() throws {
        let doc: JSONValue = ["a": [["b": 1], 2], "n": nil]
        #expect(try JSONPointer("/a/0/b").resolve(in: doc) == 1)
        #expect(try JSONPointer("/a/1").resolve(in: doc) == 2)
        #expect(try JSONPointer("/n").resolve(in: doc) == .null)
        for missing in ["/a/2", "/a/-", "/a/01", "/a/0/c", "/a/1/x", "/b", "/n/x"] {
            #expect(try JSONPointer(missing).resolve(in: doc) == nil, "\(missing)")
        }
    }

    @Test("parent, appending and ancestry")
    func relations() throws {
        let p = try JSONPointer("/a/b")
        #expect(p.parent == (try JSONPointer("/a")))
        #expect(p.parent?.parent == .root)
        #expect(JSONPointer.root.parent == nil)
        #expect(p.lastToken == "b")
        #expect(p.appending("c/d").description == "/a/b/c~1d")
        #expect(p.appending(3).description == "/a/b/3")
        #expect(JSONPointer.root.appending(p) == p)

        let a = try JSONPointer("/a"), ab = try JSONPointer("/a/b"), abc = try JSONPointer("/a/b/c")
        let aX = try JSONPointer("/ab"), other = try JSONPointer("/x")
        #expect(a.isAncestor(of: ab) && a.isAncestor(of: abc) && JSONPointer.root.isAncestor(of: a))
        #expect(!a.isAncestor(of: a) && !a.isAncestor(of: aX) && !ab.isAncestor(of: a))
        #expect(abc.isDescendant(of: a) && !a.isDescendant(of: abc))
        #expect(a.isPrefix(of: a) && a.isPrefix(of: abc) && !abc.isPrefix(of: a))
        #expect(a.overlaps(abc) && abc.overlaps(a) && a.overlaps(a) && !a.overlaps(other) && !a.overlaps(aX))
    }

    @Test("sorting keeps each subtree together, parents first")
    func ordering() throws {
        let sorted = try ["/b", "/a/c", "", "/a", "/a/b/z", "/a/b"].map { try JSONPointer($0) }.sorted()
        #expect(sorted.map(\.description) == ["", "/a", "/a/b", "/a/b/z", "/a/c", "/b"])
    }
}
