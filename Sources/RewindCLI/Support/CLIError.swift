import ArgumentParser
import Foundation

/// A failure the user should read as one sentence on stderr, with an exit code.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var code: Int32

    init(_ message: String, code: Int32 = 1) {
        self.message = message
        self.code = code
    }

    var description: String { message }
}

/// Reads a whole file, or standard input for "-", with a clear error when it cannot.
func readInput(_ path: String) throws -> [UInt8] {
    if path == "-" {
        return Array(FileHandle.standardInput.readDataToEndOfFile())
    }
    guard let data = FileManager.default.contents(atPath: path) else {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            throw CLIError(isDirectory.boolValue ? "\(path): is a directory, not a JSON file" : "\(path): cannot be read (permission denied?)", code: 2)
        }
        throw CLIError("\(path): no such file", code: 2)
    }
    return Array(data)
}
