import Foundation
import RewindSupport

/// The certificate and private key a ``WebSocketServer`` serves `https` and `wss` with
/// (``WebSocketServerConfiguration/tls``): PEM files, the certificate file holding the server's
/// certificate first and then any intermediate certificates, the key unencrypted.
///
/// Both files are checked before anything listens (``check()``): a missing, unreadable or
/// oversized file, one that is not PEM, an encrypted key, and a key that does not match the
/// certificate are each one sentence naming the file.
public struct WebSocketTLS: Sendable, Hashable {
    /// The PEM certificate (chain) file.
    public var certificatePath: String
    /// The PEM private key file, unencrypted.
    public var privateKeyPath: String

    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }

    /// Why the files cannot be served, in one sentence naming the file; `nil` when they look
    /// usable. (Whether the key matches the certificate is learnt when the server starts.)
    public func check() -> String? {
        switch TLSFile.read(certificatePath, what: "TLS certificate") {
        case .failure(let problem): return problem.message
        case .success(let text):
            guard text.contains("-----BEGIN CERTIFICATE-----") else {
                return "the TLS certificate \(certificatePath) is not a PEM certificate (it has no -----BEGIN CERTIFICATE----- line)"
            }
        }
        switch TLSFile.read(privateKeyPath, what: "TLS key") {
        case .failure(let problem): return problem.message
        case .success(let text):
            guard text.contains("-----BEGIN"), text.contains("PRIVATE KEY-----") else {
                return "the TLS key \(privateKeyPath) is not a PEM private key (it has no -----BEGIN … PRIVATE KEY----- line)"
            }
            // OpenSSL would ask for the passphrase on the terminal, which a server cannot answer.
            if text.contains("ENCRYPTED") {
                return "the TLS key \(privateKeyPath) is encrypted with a passphrase; give an unencrypted key "
                    + "(openssl pkey -in \(privateKeyPath) -out key.pem)"
            }
        }
        return nil
    }

    /// The sentence for files that each look right but libwebsockets (OpenSSL) cannot use together.
    var mismatch: String {
        "the TLS key \(privateKeyPath) does not match the certificate \(certificatePath) (or one of them is damaged)"
    }
}
