@testable import RewindWebSocket
import Testing
import RewindTestSupport

/// Text messages are checked for UTF-8 before they are delivered (1007 otherwise).
@Suite("UTF-8 validation", .ownThreads)
struct UTF8ValidationTests {
    @Test("agrees with the standard library on edge cases", arguments: [
        [], [0x41], Array("héllo wörld, 日本語, 🎉".utf8), [0xC3, 0x28], [0xC0, 0x80], [0xC1, 0xBF],
        [0xE0, 0x80, 0x80], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF],
        [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
        [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xE2, 0x82], Array("0123456789abcdef".utf8) + [0xE2, 0x82],
        Array("0123456789abcdef".utf8) + [0xE2, 0x82, 0xAC] + Array("0123456789".utf8),
    ] as [[UInt8]])
    func edgeCases(bytes: [UInt8]) {
        #expect(UTF8Validation.isValid(bytes) == (String(validating: bytes, as: UTF8.self) != nil))
    }

    @Test("agrees with the standard library on 200,000 random sequences")
    func random() {
        var generator = SystemRandomNumberGenerator()
        // Bytes that matter: ASCII, continuations, every kind of lead byte, and invalid ones.
        let alphabet: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xDF,
                                 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        for _ in 0..<200_000 {
            let count = Int.random(in: 0...12, using: &generator)
            let bytes = (0..<count).map { _ in alphabet.randomElement(using: &generator)! }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            #expect(UTF8Validation.isValid(bytes) == expected, "\(bytes)")
            if UTF8Validation.isValid(bytes) != expected { return }
        }
    }
}
