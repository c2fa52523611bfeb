/// HTTP/1.1 `transfer-encoding: chunked` bodies, as the server tests read them off a raw socket.
public enum ChunkedBody {
    /// The payload of a chunked body, and whether its last (empty) chunk and the blank line after
    /// it arrived.
    public static func decode(_ raw: [UInt8]) -> (body: [UInt8], complete: Bool) {
        var body: [UInt8] = []
        var index = 0
        let crlf: [UInt8] = [13, 10]
        while true {
            guard let lineEnd = raw[index...].indices.first(where: { raw[$0...].starts(with: crlf) }),
                  let size = Int(String(decoding: raw[index..<lineEnd], as: UTF8.self), radix: 16) else { return (body, false) }
            let start = lineEnd + 2
            if size == 0 { return (body, raw[start...].starts(with: crlf)) }
            guard start + size + 2 <= raw.count, raw[(start + size)...].starts(with: crlf) else {
                body += raw[start..<min(raw.count, start + size)]
                return (body, false)
            }
            body += raw[start..<(start + size)]
            index = start + size + 2
        }
    }
}
