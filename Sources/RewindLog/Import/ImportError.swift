/// Why a file cannot be imported, and where: one sentence in ``description``.
///
/// A JSONL problem names its line, a Redux DevTools problem the action id it concerns; a problem
/// with the document as a whole (not JSON, a missing member) names neither.
///
/// ```swift
/// do { _ = try SessionImport.parse(bytes) }
/// catch { print(error) }  // line 3: the line has no "state"
/// ```
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the input the problem is.
    public enum Location: Sendable, Equatable {
        /// A line of a JSONL file, counted from 1 (blank lines count).
        case line(Int)
        /// A line and column of a JSONL file, both counted from 1.
        case lineAndColumn(Int, Int)
        /// An action of a Redux DevTools export, by its id in `actionsById`.
        case action(String)
        /// The document as a whole.
        case document
    }

    /// Where the problem is.
    public var location: Location
    /// What is wrong, without the location.
    public var message: String

    /// Makes an error.
    public init(_ location: Location, _ message: String) {
        self.location = location
        self.message = message
    }

    /// The location, then the message: `line 3: the line has no "state"`.
    public var description: String {
        switch location {
        case .line(let line): "line \(line): \(message)"
        case .lineAndColumn(let line, let column): "line \(line), column \(column): \(message)"
        case .action(let id): "action \(id): \(message)"
        case .document: message
        }
    }
}
