import Foundation
import RewindWebSocket
import Testing
import RewindTestSupport

/// `wss` through libwebsockets' TLS (OpenSSL): a server with a certificate a throwaway CA signed,
/// clients that trust that CA or do not, and plain connections to the TLS port.
@Suite("TLS", .ownThreads)
struct TLSTests {
    func startTLSServer(_ certificates: TestCertificates, _ delegate: TestServerDelegate) throws -> (WebSocketServer, Int) {
        try startServer(delegate) {
            $0.tls = WebSocketTLS(certificatePath: certificates.certificate, privateKeyPath: certificates.key)
        }
    }

    func connect(port: Int, caFile: String?, host: String = "127.0.0.1") throws -> (WebSocketClient, TestClientDelegate) {
        try connectClient(port: port) {
            $0.url = "wss://\(host):\(port)/app"
            $0.caFile = caFile
        }
    }

    @Test("a client trusting the CA (PEM or DER) exchanges messages over wss; one that does not is refused for the certificate")
    func trustedAndNot() throws {
        let certificates = try TestCertificates()
        let serverDelegate = TestServerDelegate()
        let (server, port) = try startTLSServer(certificates, serverDelegate)
        defer { server.shutdown() }
        for caFile in [certificates.caFile, certificates.caDERFile] {
            let (client, delegate) = try connect(port: port, caFile: caFile)
            #expect(delegate.state.value.connected, "\(caFile): \(delegate.state.value.failure ?? "")")
            #expect(client.send(text: "over tls") == .enqueued)
            #expect(delegate.state.wait { $0.received.count == 1 })
            #expect(delegate.state.value.received.first?.string == "over tls")
            client.close()
            #expect(client.waitUntilFinished(timeout: .seconds(10)))
        }
        for caFile in [nil, certificates.otherCAFile] {
            let (client, delegate) = try connect(port: port, caFile: caFile)
            #expect(!delegate.state.value.connected)
            let failure = try #require(delegate.state.value.failure)
            #expect(failure.hasPrefix("the server's certificate is not trusted (unable to get local issuer certificate)"), "\(failure)")
            #expect(client.waitUntilFinished(timeout: .seconds(10)))
        }
        // The certificate names 127.0.0.1 and localhost only: a server on 127.0.0.2 with it is refused.
        let (other, otherPort) = try startServer(TestServerDelegate()) {
            $0.host = "127.0.0.2"
            $0.tls = WebSocketTLS(certificatePath: certificates.certificate, privateKeyPath: certificates.key)
        }
        defer { other.shutdown() }
        let (_, wrongName) = try connectClient(port: otherPort) {
            $0.url = "wss://127.0.0.2:\(otherPort)/app"
            $0.caFile = certificates.caFile
        }
        #expect(!wrongName.state.value.connected)
        #expect(wrongName.state.value.failure?.hasPrefix("the server's certificate is not trusted (IP address mismatch)") == true,
                "\(wrongName.state.value.failure ?? "")")
    }

    @Test("plain ws and plain HTTP to the TLS port are closed, a silent connection holds nobody up, and a good client is served meanwhile")
    func plainToTLSPort() throws {
        let certificates = try TestCertificates()
        let serverDelegate = TestServerDelegate()
        let (server, port) = try startTLSServer(certificates, serverDelegate)
        defer { server.shutdown() }
        let silent = try RawSocket(port: port)
        let plainHTTP = try RawSocket(port: port)
        try plainHTTP.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let answer = plainHTTP.read(timeout: 10) { _ in false }
        #expect(!String(decoding: answer, as: UTF8.self).contains("HTTP/1.1 200"))
        let (_, plainWS) = try connectClient(port: port)
        #expect(!plainWS.state.value.connected)
        let (client, delegate) = try connect(port: port, caFile: certificates.caFile)
        #expect(delegate.state.value.connected)
        #expect(client.send(text: "still served") == .enqueued)
        #expect(delegate.state.wait { $0.received.count == 1 })
        withExtendedLifetime(silent) {}
    }

    @Test("missing, unreadable, non-PEM, encrypted and mismatched files are one sentence naming the file")
    func badFiles() throws {
        let certificates = try TestCertificates()
        let folder = certificates.directory
        let notPEM = try folder.file("notes.txt", contents: "hello\n")
        func failure(_ certificate: String, _ key: String) -> String? {
            let server = WebSocketServer(
                configuration: {
                    var configuration = WebSocketServerConfiguration(endpoints: rewindEndpoints)
                    configuration.tls = WebSocketTLS(certificatePath: certificate, privateKeyPath: key)
                    return configuration
                }(), delegate: TestServerDelegate())
            do {
                try server.start()
                server.shutdown()
                return nil
            } catch {
                return error.description
            }
        }
        let missing = folder.path("missing.pem")
        #expect(failure(missing, certificates.key) == "cannot read the TLS certificate \(missing): there is no such file")
        #expect(failure(certificates.certificate, missing) == "cannot read the TLS key \(missing): there is no such file")
        #expect(failure(folder.url.path, certificates.key) == "cannot read the TLS certificate \(folder.url.path): it is a folder")
        #expect(failure(notPEM, certificates.key)?.hasPrefix("the TLS certificate \(notPEM) is not a PEM certificate") == true)
        #expect(failure(certificates.certificate, notPEM)?.hasPrefix("the TLS key \(notPEM) is not a PEM private key") == true)
        #expect(failure(certificates.certificate, certificates.strayKey)
                == "the TLS key \(certificates.strayKey) does not match the certificate \(certificates.certificate) (or one of them is damaged)")
        let encrypted = try folder.file("encrypted.key", contents: "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n")
        #expect(failure(certificates.certificate, encrypted)?.hasPrefix("the TLS key \(encrypted) is encrypted with a passphrase") == true)
        #expect(failure(certificates.certificate, certificates.key) == nil)
        // A client's CA file is checked when the client is made.
        #expect(throws: WebSocketError.tls("the CA file \(notPEM) is neither a PEM certificate (-----BEGIN CERTIFICATE-----) nor a DER one")) {
            _ = try WebSocketClient(configuration: WebSocketClientConfiguration(url: "wss://127.0.0.1:1/app", caFile: notPEM))
        }
    }
}
