import RewindJSON
import RewindWire
import Testing
import RewindTestSupport

@Suite("Docs/Protocol.md examples", .ownThreads)
struct ProtocolExampleTests {
    @Test("the worked hash example")
    func hashExample() throws {
        let document = try JSONValue(parsing: #"{"ratio":1.50,"tags":[],"name":"Ann","count":100}"#)
        #expect(wireHash(document.stableHash) == "5ed6d118fa313e15")
    }
}
