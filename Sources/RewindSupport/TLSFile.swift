import Foundation

/// Reading a certificate, key or CA file for a check: bounded, and every failure one sentence.
package enum TLSFile {
    /// Files larger than this are not certificates or keys (a chain of a few certificates is a
    /// few KiB); no more than this of one is read.
    package static let maxSize = 1 << 20

    package struct Problem: Error, Sendable, Equatable {
        package var message: String
    }

    /// The file's text (up to ``maxSize`` bytes), or why it cannot be read;
    /// `what` names it in the sentence ("TLS certificate", "CA file").
    package static func read(_ path: String, what: String) -> Result<String, Problem> {
        switch bytes(path, what: what) {
        case .success(let bytes): return .success(String(decoding: bytes, as: UTF8.self))
        case .failure(let problem): return .failure(problem)
        }
    }

    /// The file's bytes, or why they cannot be read.
    package static func bytes(_ path: String, what: String) -> Result<[UInt8], Problem> {
        func problem(_ why: String) -> Result<[UInt8], Problem> { .failure(Problem(message: "cannot read the \(what) \(path): \(why)")) }
        var isDirectory: ObjCBool = false
        guard !path.isEmpty, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return problem("there is no such file")
        }
        if isDirectory.boolValue { return problem("it is a folder") }
        guard let handle = FileHandle(forReadingAtPath: path) else { return problem("it cannot be opened (permissions?)") }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maxSize + 1) ?? Data()
        } catch {
            return problem("reading failed (\(error.localizedDescription))")
        }
        if data.count > maxSize { return problem("it is larger than 1 MiB, too large for a certificate or key") }
        if data.isEmpty { return problem("it is empty") }
        return .success([UInt8](data))
    }
}

/// A CA certificate file a client trusts besides the system's (`--ca-file`, `REWIND_CA_FILE`):
/// PEM (one or more certificates) or DER (one).
package struct TrustedCAFile: Sendable, Hashable {
    package enum Format: Sendable, Hashable {
        case pem
        /// The certificate's bytes, for a library that takes DER from memory.
        case der([UInt8])
    }

    package var path: String
    package var format: Format

    /// Reads and sorts the file at `path`, or says in one sentence why it cannot be trusted.
    package static func load(_ path: String) -> Result<TrustedCAFile, TLSFile.Problem> {
        switch TLSFile.bytes(path, what: "CA file") {
        case .failure(let problem):
            return .failure(problem)
        case .success(let bytes):
            if String(decoding: bytes, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") {
                return .success(TrustedCAFile(path: path, format: .pem))
            }
            // DER: an ASN.1 SEQUENCE (0x30) with a long-form length, as every certificate has.
            if bytes.count > 4, bytes[0] == 0x30, bytes[1] & 0x80 != 0 {
                return .success(TrustedCAFile(path: path, format: .der(bytes)))
            }
            return .failure(TLSFile.Problem(
                message: "the CA file \(path) is neither a PEM certificate (-----BEGIN CERTIFICATE-----) nor a DER one"))
        }
    }

    /// The certificates' DER bytes: each PEM block decoded, or the DER file as it is. Empty when
    /// a PEM block is not base64.
    package var derCertificates: [[UInt8]] {
        switch format {
        case .der(let bytes):
            return [bytes]
        case .pem:
            guard case .success(let text) = TLSFile.read(path, what: "CA file") else { return [] }
            var found: [[UInt8]] = []
            var rest = Substring(text)
            while let begin = rest.range(of: "-----BEGIN CERTIFICATE-----"),
                  let end = rest[begin.upperBound...].range(of: "-----END CERTIFICATE-----") {
                let body = rest[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
                guard let data = Data(base64Encoded: String(body)) else { return [] }
                found.append([UInt8](data))
                rest = rest[end.upperBound...]
            }
            return found
        }
    }
}
