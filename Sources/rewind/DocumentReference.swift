import ArgumentParser
import Foundation
import RewindJSON

/// A JSON document named on the command line: a file, or `-` for standard input.
///
/// Commands that compare or patch states take their sides as this type and load them through
/// ``load()``, so naming a recorded state (`SESSION@SEQ`) is one more case here, not a change
/// to each command.
enum DocumentReference: ExpressibleByArgument, CustomStringConvertible {
    case file(String)
    case standardInput

    init?(argument: String) {
        self = argument == "-" ? .standardInput : .file(argument)
    }

    /// How messages name the document: its path, or `<stdin>`.
    var description: String {
        switch self {
        case .file(let path): path
        case .standardInput: "<stdin>"
        }
    }

    var isStandardInput: Bool {
        if case .standardInput = self { return true }
        return false
    }

    /// Reads and parses the document. An unreadable file or invalid JSON is a ``CLIError``
    /// with `code` (`NAME:LINE:COLUMN: message` for JSON errors).
    func load(errorCode code: Int32 = 2) throws -> JSONValue {
        let bytes: [UInt8]
        do {
            switch self {
            case .file(let path): bytes = try readInput(path)
            case .standardInput: bytes = try readInput("-")
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
