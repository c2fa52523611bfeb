import RewindJSON

/// A state or action (from the log or the inspector) that does not decode as the store's type.
/// It names the JSON Pointer where decoding failed; the store is left as it was.
///
/// ```swift
/// do { try await store.replay(recording) }
/// catch { print(error) }   // the state does not decode at /user/age: expected Int, found a string
/// ```
public struct DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being decoded.
    public enum Subject: Sendable, Equatable {
        /// A state.
        case state
        /// An action, with its seq in the recording when known.
        case action(seq: Int64?)
    }

    /// What was being decoded.
    public var subject: Subject
    /// Where decoding failed, as a JSON Pointer into the value (`""` is the whole value).
    public var pointer: String
    /// Why.
    public var reason: String

    /// Makes a failure.
    public init(subject: Subject, pointer: String, reason: String) {
        self.subject = subject
        self.pointer = pointer
        self.reason = reason
    }

    /// One sentence naming the value, the path and the reason.
    public var description: String {
        let what: String
        switch subject {
        case .state: what = "the state"
        case .action(let seq?): what = "the action at seq \(seq)"
        case .action(nil): what = "the action"
        }
        return "\(what) does not decode at \(pointer.isEmpty ? "the root" : pointer): \(reason)"
    }

    /// Decodes `json` as `T`, or throws a failure naming the path.
    package static func decode<T: Decodable>(_ type: T.Type, from json: JSONValue, as subject: Subject) throws(DecodeError) -> T {
        do {
            // NaN and the infinities come back from the strings the recorder wrote for them.
            return try JSONValueDecoder(nonConformingFloatDecodingStrategy: .convertFromString).decode(T.self, from: json)
        } catch let error as DecodingError {
            let pointer = error.jsonPointer
            throw DecodeError(subject: subject, pointer: pointer,
                                reason: unknownCase(error, at: (try? JSONPointer(pointer)).flatMap { $0.resolve(in: json) })
                                    ?? Self.reason(error))
        } catch {
            throw DecodeError(subject: subject, pointer: "", reason: "\(error)")
        }
    }

    /// For an enum case the type does not have (renamed or removed since the recording), the
    /// case's name: synthesized `Codable` says only "Invalid number of keys found".
    private static func unknownCase(_ error: DecodingError, at value: JSONValue?) -> String? {
        guard case .typeMismatch(let type, let context) = error,
              context.debugDescription.hasPrefix("Invalid number of keys found"),
              case .object(let object)? = value else { return nil }
        let keys = object.map(\.key)
        switch keys.count {
        case 0: return "an empty object is not a case of \(type)"
        case 1: return "\(type) has no case \"\(keys[0])\" (renamed or removed since the recording?)"
        default:
            return "\(type) takes one case, an object with one key; found the keys \(keys.map { "\"\($0)\"" }.joined(separator: ", "))"
        }
    }

    private static func reason(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(let type, let context):
            return "expected \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "expected \(type), found null: \(context.debugDescription)"
        case .keyNotFound(let key, _):
            return "the key '\(key.stringValue)' is missing"
        case .dataCorrupted(let context):
            return context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }
}
