import Foundation

/// `SOCK_STREAM` as `socket(2)` and `addrinfo.ai_socktype` take it, written once for every
/// platform: Glibc imports the constant as a case of the enum `__socket_type`, Darwin as an
/// `Int32` macro. The platform's type picks one of the two overloads of ``value(_:)``, and both
/// bodies compile here, so no `#if` hides the Darwin path from the Linux build.
package enum SocketType {
    /// `SOCK_STREAM` as an `Int32`.
    package static var stream: Int32 { value(SOCK_STREAM) }

    /// Glibc's form: an enum case whose raw value is the number.
    package static func value<Constant: RawRepresentable>(_ constant: Constant) -> Int32
    where Constant.RawValue: BinaryInteger {
        Int32(constant.rawValue)
    }

    /// Darwin's form: the number itself.
    package static func value(_ constant: Int32) -> Int32 {
        constant
    }
}
