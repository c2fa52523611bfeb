#if canImport(Security)
import Foundation
import RewindSupport
import Security

/// Whether a server's certificate chain is trusted when a CA file is trusted besides the
/// system's anchors: the URLSession transport's answer to a server-trust challenge, for
/// `ServerSink(caFile:)` and `REWIND_CA_FILE`. The host name is checked as always (URLSession's
/// SSL policy on the trust object). Only a Mac or a device runs it; `make apple-check` compiles it.
enum ServerTrust {
    enum Verdict: Equatable {
        case trusted
        /// Why not, in OpenSSL's place: Security's own words.
        case refused(String)
    }

    static func evaluate(_ trust: SecTrust, caFile: String) -> Verdict {
        let file: TrustedCAFile
        switch TrustedCAFile.load(caFile) {
        case .success(let loaded): file = loaded
        case .failure(let problem): return .refused(problem.message)
        }
        let anchors = file.derCertificates.compactMap { SecCertificateCreateWithData(nil, Data($0) as CFData) }
        guard !anchors.isEmpty else { return .refused("the CA file \(caFile) holds no certificate this system can read") }
        // The file's CAs and the system's: the same as libwebsockets does on Linux.
        guard SecTrustSetAnchorCertificates(trust, anchors as CFArray) == errSecSuccess,
              SecTrustSetAnchorCertificatesOnly(trust, false) == errSecSuccess else {
            return .refused("the CA file \(caFile) could not be set as trusted")
        }
        var error: CFError?
        if SecTrustEvaluateWithError(trust, &error) { return .trusted }
        return .refused(error.map { ($0 as Error).localizedDescription } ?? "it does not chain to the CA file or the system's CAs")
    }
}
#endif
