/// RFC 3629 UTF-8 validation for whole text messages (RFC 6455 §8.1: an endpoint that receives
/// invalid UTF-8 in a text message fails the connection with 1007). Runs of ASCII, which is
/// nearly all of a JSON message, are skipped eight bytes at a time.
enum UTF8Validation {
    static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { isValid($0) }
    }

    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var i = 0
        while i < count {
            // Eight ASCII bytes at a time.
            while i + 8 <= count {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
            guard i < count else { return true }
            let lead = base[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            // The length of the sequence and the allowed range of its second byte, which rules
            // out overlong forms, surrogates (U+D800–DFFF) and code points past U+10FFFF.
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard i + length <= count else { return false }
            let second = base[i + 1]
            guard second >= low, second <= high else { return false }
            for k in 2..<length where base[i + k] & 0xC0 != 0x80 { return false }
            i += length
        }
        return true
    }
}
