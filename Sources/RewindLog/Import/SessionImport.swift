import RewindJSON

/// Reads a file in either import format, guessing which when it is not given.
///
/// ```swift
/// let session = try SessionImport.parse(bytes)               // format from the content
/// let id = try writer.write(session, uuid: UUID().uuidString, app: "Todo")
/// ```
public enum SessionImport {
    /// Reads `bytes` as `format`, or, when `nil`, as the format the content shows: a JSON
    /// object with `actionsById` or `payload` is a Redux DevTools export, anything else JSONL.
    public static func parse(_ bytes: [UInt8], format: ImportFormat? = nil,
                             options: ImportOptions = ImportOptions()) throws(ImportError) -> ImportedSession {
        switch format {
        case .jsonl?:
            return try JSONLImport.parse(bytes, options: options)
        case .reduxDevTools?:
            return try ReduxDevToolsImport.parse(bytes, options: options)
        case nil:
            switch ImportFormat.guess(bytes) {
            case .jsonl:
                return try JSONLImport.parse(bytes, options: options)
            case .reduxDevTools(let document):
                return try ReduxDevToolsImport.read(document, options: options)
            case .brokenDocument(let error):
                throw ImportError(.document, "the file is a JSON document that does not parse (\(error)), so neither a Redux DevTools export nor JSONL")
            }
        }
    }

    /// The format `bytes` would be read as by ``parse(_:format:options:)`` without a format.
    public static func guessFormat(_ bytes: [UInt8]) -> ImportFormat {
        if case .jsonl = ImportFormat.guess(bytes) { return .jsonl }
        return .reduxDevTools
    }
}
