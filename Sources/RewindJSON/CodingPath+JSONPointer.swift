extension Array where Element == any CodingKey {
    /// The coding path as a JSON Pointer (RFC 6901): `/items/3/name`; the empty path is `""`.
    ///
    /// Array positions (keys whose string form is `Index 3`, as both Rewind's and Foundation's
    /// coders make them) become their number; `~` and `/` inside keys are escaped as `~0` and `~1`.
    ///
    /// ```swift
    /// do { _ = try JSONValueDecoder().decode(Order.self, from: value) }
    /// catch let error as DecodingError { print(error.jsonPointer) }   // "/items/3/name"
    /// ```
    public var jsonPointer: String {
        var pointer = ""
        for key in self {
            pointer += "/"
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                pointer += String(index)
            } else {
                pointer += Self.escapedReferenceToken(key.stringValue)
            }
        }
        return pointer
    }

    private static func escapedReferenceToken(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return token
        }
        var escaped = ""
        for character in token.unicodeScalars {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}

extension DecodingError {
    /// The JSON Pointer of the value that could not be decoded; for a missing key, the pointer
    /// the key would have had (`/user/name` when `name` is missing from `user`).
    public var jsonPointer: String {
        switch self {
        case .keyNotFound(let key, let context):
            return (context.codingPath + [key]).jsonPointer
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return context.codingPath.jsonPointer
        @unknown default:
            return ""
        }
    }
}

extension EncodingError {
    /// The JSON Pointer of the value that could not be encoded.
    public var jsonPointer: String {
        switch self {
        case .invalidValue(_, let context):
            return context.codingPath.jsonPointer
        @unknown default:
            return ""
        }
    }
}
