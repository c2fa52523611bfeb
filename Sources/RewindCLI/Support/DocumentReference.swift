import ArgumentParser
import Foundation
import RewindJSON

/// A JSON document named on the command line: a file, `-` for standard input, or a recorded
/// state `SESSION@SEQ` (`latest@3`, `2@last`) read from the log.
///
/// Commands that compare or patch states take their sides as this type and load them through
/// ``load(errorCode:recorded:)``. A file that exists wins over a `SESSION@SEQ` reading of its name.
enum DocumentReference: ExpressibleByArgument, CustomStringConvertible {
    case file(String)
    case standardInput
    case recorded(StateReference)

    init?(argument: String) {
        if argument == "-" {
            self = .standardInput
        } else if !FileManager.default.fileExists(atPath: argument), let reference = StateReference(parsing: argument) {
            self = .recorded(reference)
        } else {
            self = .file(argument)
        }
    }

    /// How messages name the document: its path, or `<stdin>`.
    var description: String {
        switch self {
        case .file(let path): path
        case .standardInput: "<stdin>"
        case .recorded(let reference): reference.description
        }
    }

    var isStandardInput: Bool {
        if case .standardInput = self { return true }
        return false
    }

    /// Reads and parses the document, or rebuilds the recorded state through `recorded`. An
    /// unreadable file, invalid JSON or a state that is not in the log is a ``CLIError`` with
    /// `code` (`NAME:LINE:COLUMN: message` for JSON errors).
    func load(errorCode code: Int32 = 2, recorded: RecordedStates? = nil) throws -> JSONValue {
        let bytes: [UInt8]
        do {
            switch self {
            case .file(let path): bytes = try readInput(path)
            case .standardInput: bytes = try readInput("-")
            case .recorded(let reference):
                guard let recorded else { throw CLIError("\(reference): this command reads files, not recorded states") }
                return try recorded.state(reference)
            }
        } catch var error as CLIError {
            error.code = code
            throw error
        }
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw CLIError("\(description):\(error.line):\(error.column): \(error.message)", code: code)
        }
    }
}

extension Array where Element == DocumentReference {
    /// Standard input can be read once: fails when more than one document names it.
    func checkSingleStandardInput() throws {
        if filter(\.isStandardInput).count > 1 {
            throw CLIError("only one document can be read from standard input ('-')", code: 2)
        }
    }
}

/// Rebuilds the recorded states a command names, through one reader opened on first use, so two
/// states of one session share the timeline's cache (and the diff its shared subtrees).
final class RecordedStates {
    private let log: LogLocation
    private var access: ReplayAccess?

    init(log: LogLocation) {
        self.log = log
    }

    func state(_ reference: StateReference) throws -> JSONValue {
        var access = try self.access ?? ReplayAccess(log: log)
        defer { self.access = access }
        return try access.state(reference).state
    }
}
