/// A key of the interactive `rewind replay`, decoded from the bytes a terminal sends.
enum ReplayKey: Equatable {
    case up, down, pageUp, pageDown, home, end
    case enter, escape, backspace, tab, interrupt
    case character(Character)

    /// Splits `bytes` (one `read`) into keys: ANSI/VT escape sequences for the arrows and
    /// page keys, control bytes, and UTF-8 text.
    static func parse(_ bytes: [UInt8]) -> [ReplayKey] {
        var keys: [ReplayKey] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x1B {
                // ESC [ X, ESC O X, ESC [ N ~; a lone ESC is the Escape key.
                guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "[") || bytes[index + 1] == UInt8(ascii: "O") else {
                    keys.append(.escape)
                    index += 1
                    continue
                }
                var end = index + 2
                while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
                guard end < bytes.count else { keys.append(.escape); break }
                let body = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
                switch (bytes[end], body) {
                case (UInt8(ascii: "A"), _): keys.append(.up)
                case (UInt8(ascii: "B"), _): keys.append(.down)
                case (UInt8(ascii: "H"), _), (UInt8(ascii: "~"), "1"), (UInt8(ascii: "~"), "7"): keys.append(.home)
                case (UInt8(ascii: "F"), _), (UInt8(ascii: "~"), "4"), (UInt8(ascii: "~"), "8"): keys.append(.end)
                case (UInt8(ascii: "~"), "5"): keys.append(.pageUp)
                case (UInt8(ascii: "~"), "6"): keys.append(.pageDown)
                default: break  // a key this screen does not use
                }
                index = end + 1
                continue
            }
            switch byte {
            case 0x03: keys.append(.interrupt)
            case 0x09: keys.append(.tab)
            case 0x0A, 0x0D: keys.append(.enter)
            case 0x08, 0x7F: keys.append(.backspace)
            case 0x00..<0x20: break
            default:
                // One UTF-8 character: its lead byte says how many bytes follow.
                let length = byte < 0xC0 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
                let slice = bytes[index..<min(index + length, bytes.count)]
                if let character = String(decoding: slice, as: UTF8.self).first { keys.append(.character(character)) }
                index += length
                continue
            }
            index += 1
        }
        return keys
    }
}
