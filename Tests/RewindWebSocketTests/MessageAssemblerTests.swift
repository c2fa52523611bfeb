@testable import RewindWebSocket
import Testing
import RewindTestSupport

@Suite("Message assembly", .ownThreads)
struct MessageAssemblerTests {
    private func feed(_ assembler: inout MessageAssembler, _ bytes: [UInt8], binary: Bool = false, final: Bool, remaining: Int = 0) -> MessageAssembler.Outcome {
        bytes.withUnsafeBytes { assembler.append($0, binary: binary, final: final, remainingInFrame: remaining) }
    }

    @Test("joins fragments across frames into one message of the first frame's kind")
    func joins() {
        var assembler = MessageAssembler(maxMessageSize: 100)
        let outcome1 = feed(&assembler, [1, 2], binary: true, final: false, remaining: 2)
        #expect(outcome1 == .partial)
        let outcome2 = feed(&assembler, [3, 4], binary: true, final: false)
        #expect(outcome2 == .partial)
        let outcome3 = feed(&assembler, [5], binary: false, final: true)
        #expect(outcome3 == .complete(.binary([1, 2, 3, 4, 5])))
        let outcome4 = feed(&assembler, Array("hi".utf8), final: true)
        #expect(outcome4 == .complete(.text(Array("hi".utf8))))
    }

    @Test("delivers an empty message")
    func empty() {
        var assembler = MessageAssembler(maxMessageSize: 10)
        let outcome5 = feed(&assembler, [], final: true)
        #expect(outcome5 == .complete(.text([])))
    }

    @Test("refuses a message past the limit, counting what the frame still announces")
    func tooLarge() {
        var assembler = MessageAssembler(maxMessageSize: 10)
        let outcome6 = feed(&assembler, [1, 2, 3], final: false, remaining: 8)
        #expect(outcome6 == .tooLarge)
        let outcome7 = feed(&assembler, [UInt8](repeating: 0, count: 10), final: true)
        #expect(outcome7 == .complete(.text([UInt8](repeating: 0, count: 10))))
        let outcome8 = feed(&assembler, [UInt8](repeating: 0, count: 6), final: false)
        #expect(outcome8 == .partial)
        let outcome9 = feed(&assembler, [UInt8](repeating: 0, count: 5), final: true)
        #expect(outcome9 == .tooLarge)
    }
}
