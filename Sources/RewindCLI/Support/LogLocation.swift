import ArgumentParser
import Foundation
import RewindLog
import RewindPostgres

/// `--db PATH`, shared by every command that reads or writes a log.
///
/// The log is `--db`, else `$REWIND_DB`, else the platform's default, the one apps record to:
/// on Linux `$XDG_DATA_HOME/rewind/rewind.db` (`~/.local/share/rewind/rewind.db` when
/// `XDG_DATA_HOME` is unset), on macOS `~/Library/Application Support/Rewind/rewind.db`.
struct LogLocation: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The log: a file, or a team store's postgres://USER@HOST:PORT/DB URL.",
        discussion: "Default: $REWIND_DB, else \(Self.platformDefault).",
        valueName: "path|url"))
    var db: String?

    /// The log file this command uses.
    var path: String {
        Self.resolve(db, environment: ProcessInfo.processInfo.environment)
    }

    static func resolve(_ explicit: String?, environment: [String: String], platform: DefaultLog.Platform = .current) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        return DefaultLog.path(environment: environment, platform: platform)
    }

    /// The default on this platform, for the help text.
    static var platformDefault: String {
        switch DefaultLog.Platform.current {
        case .linux: "$XDG_DATA_HOME/rewind/rewind.db (~/.local/share/rewind/rewind.db)"
        case .macOS, .appContainer: "~/Library/Application Support/Rewind/rewind.db"
        }
    }

    /// The store `--db` names: a PostgreSQL database for a `postgres://` URL, else the file.
    func store() throws -> any LogStore {
        try Self.store(path)
    }

    static func store(_ path: String) throws -> any LogStore {
        guard PostgresLogStore.isURL(path) else { return SQLiteLogStore(path: path) }
        do {
            return try PostgresLogStore(url: path)
        } catch {
            throw CLIError(error.description, code: 2)
        }
    }

    /// Whether `--db` names a team store.
    var isDatabase: Bool { PostgresLogStore.isURL(path) }

    /// Opens the log for reading; a missing file is one sentence, not an empty log.
    func openReader() throws -> LogReader {
        let path = self.path
        if PostgresLogStore.isURL(path) {
            do {
                return try store().openReader()
            } catch let error as LogError {
                throw CLIError(error.description, code: 2)
            }
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIError("no log at \(path): record or import a session first, or name one with --db", code: 2)
        }
        do {
            return try LogReader(path: path)
        } catch {
            throw CLIError(error.description, code: 2)
        }
    }

    /// Opens the log for writing, creating it (and its folder) when missing.
    func openWriter() throws -> any LogStoreWriter {
        let path = self.path
        if PostgresLogStore.isURL(path) {
            do {
                return try store().openWriter()
            } catch let error as LogError {
                throw CLIError(error.description, code: 2)
            }
        }
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CLIError("cannot create the folder \(folder) for the log: \(error.localizedDescription)", code: 2)
            }
        }
        do {
            return try LogWriter(path: path)
        } catch {
            throw CLIError(error.description, code: 2)
        }
    }
}

/// A recorded state named on the command line: `SESSION@SEQ`, where SESSION is an id, a uuid
/// prefix or `latest`, and SEQ a seq number (or `last`).
struct StateReference: CustomStringConvertible {
    var session: String
    /// `nil` for `last`.
    var seq: Int64?

    /// Parses `SESSION@SEQ`; `nil` when `text` has no `@` (so callers can fall back to a file).
    init?(parsing text: String) {
        guard let at = text.lastIndex(of: "@") else { return nil }
        let name = String(text[..<at])
        let seqText = String(text[text.index(after: at)...])
        guard !name.isEmpty else { return nil }
        if seqText == "last" {
            seq = nil
        } else if let value = Int64(seqText), value >= 0 {
            seq = value
        } else {
            return nil
        }
        session = name
    }

    var description: String { "\(session)@\(seq.map(String.init) ?? "last")" }
}

extension LogReader {
    /// The session named by an id, a uuid prefix or `latest`, as a ``CLIError`` when unknown.
    func resolveSession(_ name: String) throws -> SessionInfo {
        do {
            return try session(named: name)
        } catch {
            throw CLIError(error.description, code: 2)
        }
    }
}
