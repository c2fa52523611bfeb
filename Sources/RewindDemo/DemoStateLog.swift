import Foundation

/// Appends one JSON line per change of a demo store's state to a file, for tests that check from
/// outside that a jump changed what an app shows and that resume brought it back:
///
/// ```json
/// {"app":"images","session":"1f0c…","hash":"9a3e5c0d11b2f7e4","locked":false}
/// ```
@MainActor
public final class DemoStateLog {
    /// The file.
    public let path: String
    private let handle: FileHandle

    /// Opens `path` for appending, creating it when missing.
    ///
    /// - Throws: ``DemoError`` saying why the file cannot be written.
    public init(path: String) throws(DemoError) {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw DemoError("cannot create the state log \(path) (does its folder exist and is it writable?)")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw DemoError("cannot open the state log \(path) for writing")
        }
        handle.seekToEndOfFile()
        self.path = path
        self.handle = handle
    }

    /// Appends one line.
    public func append(app: DemoAppKind, session: String, hash: String, locked: Bool) {
        // Every field is a name, a uuid or hex digits: no escaping needed.
        let line = "{\"app\":\"\(app.rawValue)\",\"session\":\"\(session)\",\"hash\":\"\(hash)\",\"locked\":\(locked)}\n"
        handle.write(Data(line.utf8))
    }

    /// Closes the file.
    public func close() {
        try? handle.close()
    }
}

/// A demo run that cannot start, in one sentence.
public struct DemoError: Error, CustomStringConvertible, Sendable {
    /// What went wrong and where.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
