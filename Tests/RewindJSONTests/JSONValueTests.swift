import RewindJSON
import Testing
import RewindTestSupport

@Suite("JSONValue", .ownThreads)
struct JSONValueTests {
    @Test("numbers keep their exact text")
    func exactNumbers() throws {
        for text in ["12345678901234567890", "1.10", "-0", "0", "-12", "1e400", "2.5E-3", "-9223372036854775808"] {
            let value = try JSONValue(parsing: text)
            #expect(value.serialized() == text)
        }
    }

    @Test("numbers compare numerically", arguments: [
        ("1.0", "1", true), ("1e2", "100", true), ("-0", "0", true), ("0.10", "1e-1", true),
        ("12345678901234567890", "12345678901234567891", false), ("1", "-1", false), ("1.5", "15e-1", true),
    ])
    func numericEquality(a: String, b: String, equal: Bool) throws {
        let x = try JSONValue(parsing: a)
        let y = try JSONValue(parsing: b)
        #expect((x == y) == equal)
        if equal {
            #expect(x.hashValue == y.hashValue)
            #expect(x.stableHash == y.stableHash)
        }
    }

    @Test("objects keep key order and compare unordered")
    func objectOrder() throws {
        let a = try JSONValue(parsing: #"{"b":1,"a":2,"c":{"y":1,"x":2}}"#)
        let b = try JSONValue(parsing: #"{"c":{"x":2,"y":1},"a":2,"b":1}"#)
        #expect(a.serialized() == #"{"b":1,"a":2,"c":{"y":1,"x":2}}"#)
        #expect(a == b)
        #expect(a.stableHash == b.stableHash)
        #expect(a.serialized(.canonical) == b.serialized(.canonical))
    }

    @Test("a repeated key keeps its first place and its last value")
    func duplicateKeys() throws {
        let v = try JSONValue(parsing: #"{"a":1,"b":2,"a":3}"#)
        #expect(v.serialized() == #"{"a":3,"b":2}"#)
    }

    @Test("large objects look keys up through their index")
    func largeObject() throws {
        var object = JSONObject()
        for k in 0..<100 { object["k\(k)"] = .number(JSONNumber(k)) }
        #expect(object["k57"] == 57)
        object["k57"] = nil
        #expect(object["k57"] == nil)
        #expect(object["k58"] == 58)
        #expect(object.count == 99)
        #expect(object.keys.first == "k0")
    }
}
