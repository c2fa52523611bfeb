import RewindJSON
import Testing
import RewindTestSupport

@Suite("State hashes: version 1 (stable hash) and the properties both versions share", .ownThreads)
struct StableHashTests {
    static let equalPairs = [
        (#"{"a":1,"b":[2,3]}"#, #"{"b":[2,3],"a":1}"#),
        (#"{"x":1.0,"y":100}"#, #"{"y":1e2,"x":1}"#),
        (#"[-0, 0.0, 1.50, 2E+1]"#, #"[0, 0, 15e-1, 20]"#),
        (#"{"n":{"z":true,"é":null,"a":"s"}}"#, #"{ "n" : { "a" : "s", "é" : null, "z" : true } }"#),
        (#""\u00e9\/""#, #""é/""#),
        (#"12345678901234567890"#, #"1234567890123456789e1"#),
    ]

    @Test("equal documents hash equal whatever their key order and number spelling, in both versions",
          arguments: StateHashVersion.allCases, equalPairs)
    func equalDocuments(version: StateHashVersion, pair: (String, String)) throws {
        let x = try JSONValue(parsing: pair.0)
        let y = try JSONValue(parsing: pair.1)
        #expect(x == y)
        #expect(x.hash(version) == y.hash(version))
    }

    @Test("different documents hash differently, including what only order or nesting tells apart",
          arguments: StateHashVersion.allCases)
    func differentDocuments(version: StateHashVersion) throws {
        let texts = [
            #"{"a":1}"#, #"{"a":2}"#, #"{"b":1}"#, #"{"a":"1"}"#, #"[1,2]"#, #"[2,1]"#, #"[[1],2]"#, #"[1,[2]]"#,
            "null", "false", "true", #""""#, "[]", "{}", "0", "1", "-1", "0.5", #"{"a":null}"#, #"{"a":{}}"#,
            "12345678901234567890", "12345678901234567891", #"{"a":1,"b":2}"#, #"{"a":2,"b":1}"#,
            #"["a","b"]"#, #"["ab"]"#, #"[""]"#, #"[[]]"#, #"[{}]"#, #""null""#, #""1""#, #""a\u0000""#, #""a""#,
        ]
        let hashes = try texts.map { try JSONValue(parsing: $0).hash(version) }
        #expect(Set(hashes).count == texts.count)
        #expect(try texts.map { try JSONValue(parsing: $0).stableHash } == texts.map { try JSONValue(parsing: $0).hash(.v1) })
    }

    @Test("the hash of a fixed document is a fixed value")
    func fixedValue() throws {
        // FNV-1a 64 of the canonical text {"a":"x\ny","b":[15e-1,true,null],"c":{"z":1e2,"é":0}},
        // computed outside Swift: it must never change, or every stored hash breaks.
        let value = try JSONValue(parsing: #"{"b":[1.50,true,null],"a":"x\ny","c":{"é":-0.0,"z":100}}"#)
        #expect(value.stableHash == 0xE89A_74AB_7AA2_EA54)
        #expect(JSONValue.null.stableHash == 0x5B9B_C4BA_5281_08E4)
        #expect(JSONValue.array([]).stableHash == 0x0961_2B07_B5EC_B5A5)
    }
}
