import Foundation
@testable import RewindSupport
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    @Test("the standard's vectors: empty, abc, the two-block message, a million a's")
    func vectors() {
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(String(repeating: "a", count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test("every length from 0 to 200 bytes agrees with Python's hashlib (padding at each block edge)")
    func lengths() throws {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = ["python3", "-c", "import hashlib\nfor n in range(201): print(hashlib.sha256(bytes((i * 7 + 3) % 256 for i in range(n))).hexdigest())"]
        let out = Pipe()
        python.standardOutput = out
        try python.run()
        let expected = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init)
        python.waitUntilExit()
        #expect(expected.count == 201)
        for (n, digest) in expected.enumerated() {
            let bytes = (0..<n).map { UInt8(($0 * 7 + 3) % 256) }
            let ours = SHA256.digest(bytes).map { String(format: "%02x", $0) }.joined()
            #expect(ours == digest, "length \(n)")
        }
    }
}
