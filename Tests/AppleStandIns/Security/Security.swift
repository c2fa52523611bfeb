// A stand-in for the part of the Security framework that Rewind's URLSession transport uses to
// trust a private CA (`Sources/RewindRecorder/Transport/ServerTrust.swift`), with the shapes the
// iOS 18.0 / macOS 15.0 SDKs give it (SecBase.h, SecCertificate.h, SecTrust.h as Swift imports
// them), so that the code is type-checked here (`make apple-check`). On Apple platforms the real
// framework is used and this target is never built (the manifest adds it only when
// REWIND_APPLE_SHAPES is set). Core Foundation, which Security re-exports there, is not
// importable on Linux: its types stand here as the Foundation classes they are toll-free
// bridged with, so `data as CFData` and `array as CFArray` compile as they do on a Mac. Bodies
// trap: nothing here runs, and only a Mac can check the evaluation itself.
import Foundation

private func standIn(_ what: String = #function) -> Never {
    fatalError("stand-in Security: \(what) does not run on Linux")
}

/// `typealias OSStatus = Int32` (MacTypes.h).
public typealias OSStatus = Int32
/// `CFDataRef`, toll-free bridged with `NSData`.
public typealias CFData = NSData
/// `CFArrayRef`, toll-free bridged with `NSArray`.
public typealias CFArray = NSArray
/// `CFErrorRef`, toll-free bridged with `NSError`.
public typealias CFError = NSError
/// `CFAllocatorRef`.
public final class CFAllocator {}

/// `SecCertificateRef`.
public final class SecCertificate {}
/// `SecTrustRef`.
public final class SecTrust {}

/// `errSecSuccess` (SecBase.h).
public var errSecSuccess: OSStatus { 0 }

/// `SecCertificateRef _Nullable SecCertificateCreateWithData(CFAllocatorRef _Nullable allocator, CFDataRef data)`.
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? { standIn() }

/// `OSStatus SecTrustSetAnchorCertificates(SecTrustRef trust, CFArrayRef anchorCertificates)`.
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray) -> OSStatus { standIn() }

/// `OSStatus SecTrustSetAnchorCertificatesOnly(SecTrustRef trust, Boolean anchorCertificatesOnly)`.
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus { standIn() }

/// `bool SecTrustEvaluateWithError(SecTrustRef trust, CFErrorRef _Nullable * _Nullable error)`.
@available(iOS 12.0, macOS 10.14, *)
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool { standIn() }
