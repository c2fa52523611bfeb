/// What `rewind --version` prints: the package's version and, when it was built in a git
/// checkout, the commit (``BuildCommit``, generated at build time by Plugins/RewindBuildInfo).
enum RewindVersion {
    /// The package's version. Raise it with each release.
    static let number = "0.9.0"

    /// `rewind 0.9.0 (commit 1a2b3c4d5e6f)`, or `rewind 0.9.0` when built outside git.
    static var text: String { line(commit: BuildCommit.hash) }

    static func line(commit: String?) -> String {
        guard let commit else { return "rewind \(number)" }
        return "rewind \(number) (commit \(commit.prefix(12)))"
    }
}
