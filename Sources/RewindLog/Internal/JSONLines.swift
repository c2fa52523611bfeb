/// The lines of a JSONL text, numbered from 1, without their `\n` or `\r\n`.
struct JSONLines: Sequence {
    struct Line {
        /// The line's number, counted from 1.
        var number: Int
        /// The line's bytes, without its terminator.
        var content: ArraySlice<UInt8>

        /// `true` when the line holds only spaces and tabs (or nothing).
        var isBlank: Bool {
            content.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        }
    }

    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    struct Iterator: IteratorProtocol {
        let bytes: [UInt8]
        var start = 0
        var number = 0

        mutating func next() -> Line? {
            guard start < bytes.count else { return nil }
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            var end = newline
            if end > start && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            number += 1
            // A leading UTF-8 byte-order mark belongs to the file, not to the first line.
            var lineStart = start
            if number == 1 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) { lineStart = Swift.min(3, end) }
            let line = Line(number: number, content: bytes[lineStart..<end])
            start = newline + 1
            return line
        }
    }

    func makeIterator() -> Iterator {
        Iterator(bytes: bytes)
    }

    /// The first line that is not blank.
    static func firstContentLine(in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        JSONLines(bytes).first { !$0.isBlank }?.content
    }
}
