import Foundation

/// A throwaway certificate authority and a server certificate it signed for 127.0.0.1 and
/// localhost, made with the `openssl` command in a temporary folder (`make deps` installs it);
/// a second, unrelated CA; and a key that belongs to neither certificate. Removed with the value.
public final class TestCertificates: @unchecked Sendable {
    public let directory: TemporaryDirectory
    /// The CA that signed ``certificate`` (PEM), and the same in DER.
    public let caFile: String
    public let caDERFile: String
    /// The server's certificate (PEM) and its unencrypted key.
    public let certificate: String
    public let key: String
    /// Another CA, which signed nothing here.
    public let otherCAFile: String
    /// A key that matches no certificate here.
    public let strayKey: String
    /// A certificate for 127.0.0.1 signed by ``caFile`` that expired on 2020-02-01 (its key is
    /// ``expiredKey``).
    public let expiredCertificate: String
    public let expiredKey: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public init() throws {
        let folder = try TemporaryDirectory()
        directory = folder
        func path(_ name: String) -> String { folder.path(name) }
        caFile = path("ca.pem")
        caDERFile = path("ca.der")
        certificate = path("server.pem")
        key = path("server.key")
        otherCAFile = path("other-ca.pem")
        strayKey = path("stray.key")
        expiredCertificate = path("expired.pem")
        expiredKey = path("expired.key")
        try FileManager.default.createDirectory(atPath: path("issued"), withIntermediateDirectories: true)
        _ = try folder.file("index.txt", contents: "")
        _ = try folder.file("serial", contents: "01\n")
        let authority = try folder.file("ca.cnf", contents: """
            [ ca ]
            default_ca = test
            [ test ]
            dir = \(folder.url.path)
            database = \(path("index.txt"))
            new_certs_dir = \(path("issued"))
            serial = \(path("serial"))
            default_md = sha256
            policy = anything
            [ anything ]
            commonName = supplied

            """)
        let extensions = try folder.file("server.ext", contents: """
            subjectAltName = IP:127.0.0.1, DNS:localhost
            basicConstraints = CA:FALSE
            keyUsage = digitalSignature, keyEncipherment
            extendedKeyUsage = serverAuth

            """)
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "30",
             "-subj", "/CN=Rewind Test CA", "-keyout", path("ca.key"), "-out", caFile],
            ["x509", "-in", caFile, "-outform", "DER", "-out", caDERFile],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", path("server.csr")],
            ["x509", "-req", "-in", path("server.csr"), "-CA", caFile, "-CAkey", path("ca.key"), "-CAcreateserial",
             "-days", "30", "-extfile", extensions, "-out", certificate],
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "30",
             "-subj", "/CN=Another CA", "-keyout", path("other-ca.key"), "-out", otherCAFile],
            ["genpkey", "-algorithm", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", strayKey],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-subj", "/CN=127.0.0.1", "-keyout", expiredKey, "-out", path("expired.csr")],
            ["ca", "-batch", "-config", authority, "-cert", caFile, "-keyfile", path("ca.key"),
             "-startdate", "20200101000000Z", "-enddate", "20200201000000Z", "-in", path("expired.csr"), "-out", expiredCertificate],
        ]
        for step in steps {
            let status = try Subprocess(Self.openssl, step, output: .null, error: .null).waitUntilExit()
            guard status == 0 else {
                throw Failure(description: "openssl \(step.joined(separator: " ")) exited with \(status)")
            }
        }
    }

    /// The `openssl` command: Debian's, or the first on PATH.
    static let openssl: String = {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let candidate = "\(folder)/openssl"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return "/usr/bin/openssl"
    }()
}
