@testable import RewindWebSocket
import Testing
import RewindTestSupport

/// The bytes a server's batch puts on the wire, checked one by one against RFC 6455 §5.2: FIN and
/// the opcode in the first byte, the mask bit clear (a server never masks; a client's frames are
/// masked by libwebsockets, not here), and the payload length in its 7-, 16- or 64-bit form.
@Suite("Frame headers and batches, byte by byte", .ownThreads)
struct FrameBatchTests {
    /// The header `FrameHeader` writes for `payload` bytes of `opcode`.
    private func header(opcode: UInt8, payload: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xEE, count: FrameHeader.maxSize)
        let written = bytes.withUnsafeMutableBufferPointer { FrameHeader.write(opcode: opcode, payload: payload, at: $0.baseAddress!) }
        return Array(bytes.prefix(written))
    }

    /// `messages` laid out as one batch, in a buffer exactly as long as the batch says it takes.
    private func layOut(_ messages: [WebSocketMessage]) -> [UInt8] {
        let batch = Batch(messages: messages)
        var bytes = [UInt8](repeating: 0xEE, count: batch.byteCount)
        let written = bytes.withUnsafeMutableBufferPointer { batch.layOut(at: $0.baseAddress!) }
        #expect(written == bytes.count)
        return bytes
    }

    @Test("a payload of 0 bytes: FIN, text, length 0 in the second byte")
    func emptyPayload() {
        #expect(header(opcode: 0x1, payload: 0) == [0x81, 0x00])
    }

    @Test("125 bytes, the longest 7-bit length")
    func longestShortLength() {
        #expect(header(opcode: 0x1, payload: 125) == [0x81, 0x7D])
    }

    @Test("126 bytes, the shortest 16-bit length: 126, then 0x007E")
    func shortest16BitLength() {
        #expect(header(opcode: 0x1, payload: 126) == [0x81, 0x7E, 0x00, 0x7E])
    }

    @Test("65,535 bytes, the longest 16-bit length: 126, then 0xFFFF")
    func longest16BitLength() {
        #expect(header(opcode: 0x2, payload: 65_535) == [0x82, 0x7E, 0xFF, 0xFF])
    }

    @Test("65,536 bytes, the shortest 64-bit length: 127, then eight bytes big-endian")
    func shortest64BitLength() {
        #expect(header(opcode: 0x2, payload: 65_536) == [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00])
    }

    @Test("a length past 32 bits keeps every byte in its place")
    func wide64BitLength() {
        #expect(header(opcode: 0x2, payload: 0x0102_0304_0506) == [0x82, 0x7F, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06])
    }

    @Test("the first byte is FIN, three clear reserved bits and the opcode; the mask bit is always clear",
          arguments: [0, 1, 125, 126, 65_535, 65_536])
    func finOpcodeAndMask(payload: Int) {
        for opcode: UInt8 in [0x1, 0x2] {
            let bytes = header(opcode: opcode, payload: payload)
            #expect(bytes[0] & 0x80 == 0x80, "FIN")
            #expect(bytes[0] & 0x70 == 0, "RSV1-3")
            #expect(bytes[0] & 0x0F == opcode)
            #expect(bytes[1] & 0x80 == 0, "a server's frame is not masked")
        }
    }

    @Test("each length form starts where RFC 6455 says, and a frame's size is its header and payload")
    func lengthForms() {
        let cases: [(payload: Int, form: FrameHeader.LengthForm, frame: Int)] = [
            (0, .short, 2), (125, .short, 127), (126, .extended16, 130),
            (65_535, .extended16, 65_539), (65_536, .extended64, 65_546),
        ]
        for (payload, form, frame) in cases {
            #expect(FrameHeader.LengthForm(payload: payload) == form, "\(payload)")
            #expect(Batch.frameSize(payload) == frame, "\(payload)")
            #expect(header(opcode: 0x1, payload: payload).count == form.headerSize, "\(payload)")
        }
        #expect(FrameHeader.maxSize == 10)
    }

    @Test("a batch is its frames back to back: header, then the payload as it was (no mask key, nothing XORed)")
    func batchLayout() {
        let text = WebSocketMessage.text(Array("hi".utf8))
        let empty = WebSocketMessage.binary([])
        let long = WebSocketMessage.binary((0..<200).map { UInt8($0) })
        let bytes = layOut([text, empty, long])

        #expect(Array(bytes[0..<4]) == [0x81, 0x02, 0x68, 0x69])
        #expect(Array(bytes[4..<6]) == [0x82, 0x00])
        #expect(Array(bytes[6..<10]) == [0x82, 0x7E, 0x00, 0xC8])
        let payload = Array(bytes[10...])
        #expect(payload.count == 200)
        if let index = payload.indices.first(where: { payload[$0] != UInt8($0) }) {
            Issue.record("payload byte \(index) is \(payload[index]), not \(index)")
        }
    }

    @Test("a batch read back frame by frame gives each message whole, in order, at every length boundary")
    func batchReadsBack() {
        let lengths = [0, 1, 125, 126, 127, 1_000, 65_535, 65_536]
        let messages: [WebSocketMessage] = lengths.enumerated().map { index, length in
            let bytes = pseudoRandomBytes(count: length, seed: UInt64(index + 1))
            return index % 2 == 0 ? .text(bytes) : .binary(bytes)
        }
        let bytes = layOut(messages)
        var position = 0
        var readBack: [WebSocketMessage] = []
        // An independent reader: RFC 6455 §5.2, for final unmasked frames only.
        while position < bytes.count {
            let first = bytes[position], second = bytes[position + 1]
            #expect(first & 0x80 == 0x80 && second & 0x80 == 0)
            var length = Int(second & 0x7F)
            var headerSize = 2
            if length == 126 {
                length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
                headerSize = 4
            } else if length == 127 {
                length = (0..<8).reduce(0) { $0 << 8 | Int(bytes[position + 2 + $1]) }
                headerSize = 10
            }
            let payload = Array(bytes[(position + headerSize)..<(position + headerSize + length)])
            readBack.append(first & 0x0F == 0x1 ? .text(payload) : .binary(payload))
            position += headerSize + length
        }
        #expect(position == bytes.count)
        #expect(readBack.count == messages.count)
        if let index = zip(readBack, messages).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("message \(index) (\(lengths[index]) bytes) does not read back as sent")
        }
    }
}
