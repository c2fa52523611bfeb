import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A secret read from a file (`--token-file`, `--app-token-file`, `--inspect-token-file`), so
/// that it never stands on a command line, where `ps` shows it to every user of the machine.
enum SecretFile {
    /// The most bytes such a file may hold.
    static let maxBytes = 4_096

    /// The secret in `path` (its text without the surrounding whitespace and newline), or the
    /// sentence that says why it cannot be used: missing, not a regular file, readable by other
    /// users (group or others), too large, or empty. `option` names the flag in the sentence.
    static func read(_ path: String, option: String) throws -> String {
        let expanded = (path as NSString).expandingTildeInPath
        var info = stat()
        guard stat(expanded, &info) == 0 else {
            throw CLIError("\(option) \(path): \(String(cString: strerror(errno)))", code: 2)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw CLIError("\(option) \(path) is not a regular file; give the file that holds the token", code: 2)
        }
        let mode = Int(info.st_mode) & 0o777
        guard mode & 0o077 == 0 else {
            throw CLIError("\(option) \(path) can be read by other users of this machine (mode \(String(mode, radix: 8))); "
                           + "make it yours alone: chmod 600 \(path)", code: 2)
        }
        guard info.st_size <= maxBytes, let data = FileManager.default.contents(atPath: expanded) else {
            throw CLIError("\(option) \(path) is larger than \(maxBytes) bytes: it should hold one token", code: 2)
        }
        let secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !secret.isEmpty, !secret.contains(where: \.isNewline) else {
            throw CLIError("\(option) \(path) \(secret.isEmpty ? "is empty" : "holds more than one line"): it should hold one token", code: 2)
        }
        return secret
    }
}
