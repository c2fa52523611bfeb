/// Where in the app's source an action was sent: the `#fileID`, `#line` and `#function` of the
/// `send` call, captured by its default arguments. Stored with the event (schema 3).
///
/// ```swift
/// let site = SendSite(file: "MyApp/CartView.swift", line: 42, function: "body")
/// site.description   // "MyApp/CartView.swift:42 body"
/// ```
public struct SendSite: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `#fileID`: the module and file name, `MyApp/CartView.swift`.
    public var file: String
    /// `#line`.
    public var line: Int
    /// `#function`: the enclosing declaration, `body` or `checkout()`.
    public var function: String

    /// The most bytes a file or function name may take; longer ones are refused on the wire and
    /// cut (on a character boundary) by the recorder.
    public static let maxNameBytes = 1_024

    /// A send site.
    public init(file: String, line: Int, function: String) {
        self.file = file
        self.line = line
        self.function = function
    }

    /// Where an action the inspector dispatched (the page's Dispatch box, `rewind`'s commands) was
    /// sent from: no file of the app's. Line 0, which no source line has, marks it.
    public static let inspector = SendSite(file: "the inspector", line: 0, function: "dispatch")

    /// `file:line function` (`file function` for line 0: no line, as for ``inspector``).
    public var description: String { "\(fileAndLine) \(function)" }

    /// This site with its names cut to ``maxNameBytes`` and its line clamped to 0 or more, as the
    /// log and the wire accept it.
    public static func bounded(_ site: SendSite) -> SendSite {
        func cut(_ name: String) -> String {
            guard name.utf8.count > maxNameBytes else { return name }
            var kept = ""
            for character in name {
                guard kept.utf8.count + character.utf8.count <= maxNameBytes else { break }
                kept.append(character)
            }
            return kept
        }
        return SendSite(file: cut(site.file), line: max(0, site.line), function: cut(site.function))
    }

    /// `file:line`, the short form (`file` alone for line 0).
    public var fileAndLine: String { line == 0 ? file : "\(file):\(line)" }
}
