import Foundation
import RewindJSON

/// Where a branch session comes from: a session recomputed by its app with actions left out or
/// replaced (`rewind branch`, the inspector's *Leave out & branch*), as its meta says
/// (`"branch": {"of", "skipped", "edited"}`).
public struct BranchOrigin: Sendable, Equatable {
    /// The uuid of the original session.
    public var of: String
    /// The seqs left out.
    public var skipped: [Int64]
    /// The seqs whose action was replaced.
    public var edited: [Int64]

    /// Describes a branch.
    public init(of: String, skipped: [Int64] = [], edited: [Int64] = []) {
        self.of = of
        self.skipped = skipped
        self.edited = edited
    }

    /// `left out 7, 9; edited 12`: what the branch changed, in words (empty when nothing is said).
    public var changes: String {
        var parts: [String] = []
        if !skipped.isEmpty { parts.append("left out " + skipped.map(String.init).joined(separator: ", ")) }
        if !edited.isEmpty { parts.append("edited " + edited.map(String.init).joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}

extension SessionInfo {
    /// The branch this session is, read from its meta; `nil` for a session that is not a branch
    /// (a recording, an import, a replay).
    public var branch: BranchOrigin? {
        guard replayOf != nil, case .object(let branch)? = meta["branch"], let of = branch["of"]?.stringValue else { return nil }
        func seqs(_ key: String) -> [Int64] {
            guard case .array(let items)? = branch[key] else { return [] }
            return items.compactMap { $0.numberValue?.int64Value }
        }
        return BranchOrigin(of: of, skipped: seqs("skipped"), edited: seqs("edited"))
    }

    /// Whether this session is a branch (``branch``).
    public var isBranch: Bool { branch != nil }
}
