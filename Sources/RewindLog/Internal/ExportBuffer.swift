/// Collects output bytes and hands them on in chunks of about 64 KiB, so an export of any size
/// holds one chunk at a time. A value of a chunk or more (a large state) is handed on as it is,
/// after what was collected before it, instead of being copied into the chunk.
struct ExportBuffer: ~Copyable {
    private var bytes: [UInt8] = []
    private let output: ([UInt8]) throws -> Void
    private static let chunkSize = 1 << 16

    init(output: @escaping ([UInt8]) throws -> Void) {
        self.output = output
        bytes.reserveCapacity(Self.chunkSize + 4096)
    }

    mutating func append(_ text: String) throws {
        bytes.append(contentsOf: text.utf8)
        try flushIfFull()
    }

    mutating func append(_ value: [UInt8]) throws {
        guard value.count < Self.chunkSize else {
            try flush()
            try output(value)
            return
        }
        bytes.append(contentsOf: value)
        try flushIfFull()
    }

    mutating func append(byte: UInt8) throws {
        bytes.append(byte)
        try flushIfFull()
    }

    /// Hands on whatever is collected.
    mutating func flush() throws {
        guard !bytes.isEmpty else { return }
        try output(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    private mutating func flushIfFull() throws {
        if bytes.count >= Self.chunkSize { try flush() }
    }
}
