/// Why a replay could not start.
public struct ReplayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One sentence saying why.
    public var description: String

    /// Makes an error.
    public init(_ description: String) {
        self.description = description
    }
}
