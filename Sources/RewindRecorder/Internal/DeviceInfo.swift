import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The device model and operating system a recording says it ran on (`meta.device`,
/// `meta.os`), found once per process.
///
/// Both paths are compiled everywhere, and everything they call but `sysctlbyname` (the Mac's
/// model, `#if os(macOS)`) exists in Glibc and swift-corelibs-foundation too; which one runs is
/// the platform's, and `make apple-check` (`REWIND_APPLE_SHAPES`) runs the Apple one on Linux.
enum DeviceInfo {
    /// This process's device and system.
    static let current: (device: String, os: String) = detect(environment: ProcessInfo.processInfo.environment)

    static func detect(environment: [String: String]) -> (device: String, os: String) {
        #if canImport(Darwin) || REWIND_APPLE_SHAPES
        return (appleDevice(environment: environment), appleSystem())
        #else
        return (machine() ?? "unknown", linuxSystem(files: ["/etc/os-release", "/usr/lib/os-release"]))
        #endif
    }

    /// `uname`'s machine: the model identifier on an iPhone or iPad (`iPhone15,2`), the
    /// processor architecture on a Mac, in the Simulator and on Linux (`arm64`, `x86_64`).
    static func machine() -> String? {
        var names = utsname()
        guard uname(&names) == 0 else { return nil }
        return field(names.machine)
    }

    /// `uname`'s kernel release (`6.1.0-18-amd64`).
    static func release() -> String? {
        var names = utsname()
        guard uname(&names) == 0 else { return nil }
        return field(names.release)
    }

    /// A NUL-terminated `utsname` field (a tuple of `CChar`, 65 of them in Glibc, 256 in Darwin).
    private static func field<T>(_ tuple: T) -> String? {
        let text = withUnsafeBytes(of: tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? nil : text
    }

    // MARK: Apple platforms

    /// The model identifier: the Mac's `hw.model`; in the Simulator, the model it simulates
    /// (the simulator sets `SIMULATOR_MODEL_IDENTIFIER`); on a device, `uname`'s machine.
    static func appleDevice(environment: [String: String]) -> String {
        #if os(macOS)
        if let model = sysctlText("hw.model") { return model }
        #endif
        if let simulated = environment["SIMULATOR_MODEL_IDENTIFIER"], !simulated.isEmpty { return simulated }
        return machine() ?? "unknown"
    }

    /// `iOS 17.4.1`, `macOS 14.4`, … with ` (Simulator)` in the Simulator.
    static func appleSystem() -> String {
        let name: String
        #if os(macOS)
        name = "macOS"
        #elseif targetEnvironment(macCatalyst)
        name = "Mac Catalyst"
        #elseif os(tvOS)
        name = "tvOS"
        #elseif os(watchOS)
        name = "watchOS"
        #elseif os(visionOS)
        name = "visionOS"
        #else
        name = "iOS"
        #endif
        let version = ProcessInfo.processInfo.operatingSystemVersion
        var text = "\(name) \(version.majorVersion).\(version.minorVersion)"
        if version.patchVersion > 0 { text += ".\(version.patchVersion)" }
        #if targetEnvironment(simulator)
        text += " (Simulator)"
        #endif
        return text
    }

    #if os(macOS)
    /// A string `sysctl` value (`hw.model`), read into a buffer of the size it asks for.
    private static func sysctlText(_ name: String) -> String? {
        var size = 0
        guard sysctlbyname(name, nil, &size, nil, 0) == 0, size > 0, size <= 1_024 else { return nil }
        var buffer = [UInt8](repeating: 0, count: size)
        guard sysctlbyname(name, &buffer, &size, nil, 0) == 0 else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }
    #endif

    // MARK: Linux

    /// The distribution's `PRETTY_NAME` from the first os-release file that has one (else its
    /// `NAME` and `VERSION_ID`), else `Linux` and the kernel release.
    static func linuxSystem(files: [String]) -> String {
        for path in files {
            guard let text = readPrefix(path, maxBytes: 64 * 1_024) else { continue }
            let fields = osRelease(text)
            if let pretty = fields["PRETTY_NAME"], !pretty.isEmpty { return pretty }
            if let name = fields["NAME"], !name.isEmpty {
                return fields["VERSION_ID"].map { "\(name) \($0)" } ?? name
            }
        }
        return "Linux" + (release().map { " " + $0 } ?? "")
    }

    /// The assignments of an os-release file (`KEY=value`, `KEY="a value"`, `KEY='a value'`;
    /// `#` comments and blank lines skipped). Inside double quotes a backslash escapes `"`,
    /// `\`, `$` and a backquote, as the format's shell-like syntax says. A value is at most 256
    /// bytes; longer ones are not read.
    static func osRelease(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = String(trimmed[..<equals])
            guard !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { continue }
            var raw = Substring(trimmed[trimmed.index(after: equals)...])
            while let last = raw.last, last == " " || last == "\t" { raw = raw.dropLast() }
            guard let value = unquote(raw), value.utf8.count <= 256 else { continue }
            fields[key] = value
        }
        return fields
    }

    private static func unquote(_ raw: Substring) -> String? {
        guard let quote = raw.first, quote == "\"" || quote == "'" else { return String(raw) }
        guard raw.count >= 2, raw.last == quote else { return nil }
        let inner = raw.dropFirst().dropLast()
        guard quote == "\"" else { return String(inner) }
        var value = ""
        var escaped = false
        for character in inner {
            if escaped {
                if !"\"\\$`".contains(character) { value.append("\\") }
                value.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                value.append(character)
            }
        }
        if escaped { value.append("\\") }
        return value
    }

    /// The first `maxBytes` of a file as UTF-8 (a file is read no further, however large).
    private static func readPrefix(_ path: String, maxBytes: Int) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maxBytes) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
