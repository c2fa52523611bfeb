import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `rewind serve --lan` needs: the machine's network addresses a device can reach, and a
/// token kept from one run to the next so a scheme's `REWIND_TOKEN` stays valid.
enum LANAccess {
    /// One interface's IPv4 address.
    struct Address: Equatable {
        var interface: String
        var ip: String
    }

    /// The IPv4 addresses of interfaces that are up, loopback excluded, in the system's order.
    /// (IPv6 is left out: a link-local address needs a zone a phone's URL cannot carry.)
    static func addresses() -> [Address] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0, let first else { return [] }
        defer { freeifaddrs(first) }
        // IFF_UP and IFF_LOOPBACK have the same values on Linux and Darwin.
        let up: UInt32 = 0x1
        let loopback: UInt32 = 0x8
        var found: [Address] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = UInt32(entry.pointee.ifa_flags)
            guard flags & up != 0, flags & loopback == 0, let address = entry.pointee.ifa_addr,
                  address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let converted = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                var raw = ipv4.pointee.sin_addr
                return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil
            }
            guard converted else { continue }
            let ip = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            found.append(Address(interface: String(cString: entry.pointee.ifa_name), ip: ip))
        }
        return found
    }

    /// The token file beside the log: `rewind.token` in the log's folder.
    static func tokenPath(besideLog logPath: String) -> String {
        let folder = (logPath as NSString).deletingLastPathComponent
        return ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent("rewind.token")
    }

    /// The token kept at `path`, made (32 random hex digits, readable by the owner only) the first
    /// time. Returns the token and whether it was just made.
    static func keptToken(at path: String) throws -> (token: String, created: Bool) {
        if let data = FileManager.default.contents(atPath: path) {
            let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty, token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw CLIError("the token file \(path) is empty or holds more than letters, digits, - and _; delete it to make a new token", code: 2)
            }
            return (token, false)
        }
        var generator = SystemRandomNumberGenerator()
        let token = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: path, contents: Data((token + "\n").utf8),
                                                 attributes: [.posixPermissions: 0o600]) else {
                throw CLIError("cannot write the token file \(path)", code: 2)
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("cannot write the token file \(path): \(error.localizedDescription)", code: 2)
        }
        return (token, true)
    }
}
