// A stand-in for the URLSession API that Rewind's URLSession transport uses, with the shapes
// Apple's SDKs give it, so that `Sources/RewindRecorder/Transport/URLSessionTransport.swift` is
// type-checked here against Darwin's annotations, not only against swift-corelibs-foundation's
// (`make apple-check`). On Linux these types live in FoundationNetworking, and a module of that
// name on the import path shadows the toolchain's; on Apple platforms they are in Foundation and
// this target is never built (the manifest adds it only when REWIND_APPLE_SHAPES is set).
//
// Shapes from the iOS 18.0 / macOS 15.0 SDKs (Xcode 16): Foundation's NSURLSession.h and
// NSURLRequest.h as Swift imports them, and the Foundation overlay (URLRequest,
// URLSessionWebSocketTask.Message, the completion-handler forms). Objective-C `optional`
// protocol requirements cannot be spelt without the Objective-C runtime; here each is a
// requirement with a default implementation, which asks the same of a conforming class. Bodies
// trap: nothing here runs.
import Foundation
import Security

private func standIn(_ what: String = #function) -> Never {
    fatalError("stand-in FoundationNetworking: \(what) does not run on Linux")
}

/// `struct URLRequest` (Foundation overlay; its `ReferenceConvertible` conformance, which needs
/// Objective-C bridging, is left out: Rewind does not use it).
public struct URLRequest: Equatable, Hashable, Sendable {
    /// `NSURLRequest.CachePolicy`, the one case the default argument names.
    public enum CachePolicy: UInt, @unchecked Sendable {
        case useProtocolCachePolicy = 0
    }
    public init(url: URL, cachePolicy: URLRequest.CachePolicy = .useProtocolCachePolicy,
                timeoutInterval: TimeInterval = 60.0) { standIn() }
    public var url: URL? {
        get { standIn() }
        set { standIn() }
    }
    public var timeoutInterval: TimeInterval {
        get { standIn() }
        set { standIn() }
    }
    public mutating func setValue(_ value: String?, forHTTPHeaderField field: String) { standIn() }
}

/// `NSURLResponse`: `open class URLResponse : NSObject, NSSecureCoding, NSCopying, @unchecked Sendable`.
open class URLResponse: NSObject, @unchecked Sendable {}

/// `NSHTTPURLResponse`.
open class HTTPURLResponse: URLResponse, @unchecked Sendable {
    open var statusCode: Int { standIn() }
}

/// `NSURLSessionConfiguration`.
open class URLSessionConfiguration: NSObject, @unchecked Sendable {
    open class var ephemeral: URLSessionConfiguration { standIn() }
}

/// `NSURLAuthenticationMethodServerTrust` (NSURLProtectionSpace.h).
public let NSURLAuthenticationMethodServerTrust: String = "NSURLAuthenticationMethodServerTrust"

/// `NSURLProtectionSpace`: `open class URLProtectionSpace : NSObject, NSSecureCoding, NSCopying, @unchecked Sendable`.
open class URLProtectionSpace: NSObject, @unchecked Sendable {
    open var host: String { standIn() }
    open var authenticationMethod: String { standIn() }
    open var serverTrust: SecTrust? { standIn() }
}

/// `NSURLAuthenticationChallenge`: `open class URLAuthenticationChallenge : NSObject, NSSecureCoding, @unchecked Sendable`.
open class URLAuthenticationChallenge: NSObject, @unchecked Sendable {
    /*@NSCopying*/ open var protectionSpace: URLProtectionSpace { standIn() }
}

/// `NSURLCredential`: `open class URLCredential : NSObject, NSSecureCoding, NSCopying, @unchecked Sendable`.
open class URLCredential: NSObject, @unchecked Sendable {
    public /*not inherited*/ init(trust: SecTrust) { standIn() }
}

/// `NSURLSession`.
open class URLSession: NSObject, @unchecked Sendable {
    /// `NSURLSessionAuthChallengeDisposition` (`NS_ENUM(NSInteger)`).
    public enum AuthChallengeDisposition: Int, @unchecked Sendable {
        case useCredential = 0
        case performDefaultHandling = 1
        case cancelAuthenticationChallenge = 2
        case rejectProtectionSpace = 3
    }

    /*not inherited*/ public init(configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?,
                                  delegateQueue queue: OperationQueue?) { standIn() }
    open func finishTasksAndInvalidate() { standIn() }
    open func invalidateAndCancel() { standIn() }
    @available(iOS 13.0, macOS 10.15, *)
    open func webSocketTask(with request: URLRequest) -> URLSessionWebSocketTask { standIn() }
}

/// `NSURLSessionTask`.
open class URLSessionTask: NSObject, @unchecked Sendable {
    /*@NSCopying*/ open var response: URLResponse? { standIn() }
    open func resume() { standIn() }
}

/// `NSURLSessionWebSocketTask`, with the overlay's `Message` and completion-handler forms.
@available(iOS 13.0, macOS 10.15, *)
open class URLSessionWebSocketTask: URLSessionTask, @unchecked Sendable {
    /// `NSURLSessionWebSocketCloseCode` (`NS_ENUM(NSInteger)`).
    public enum CloseCode: Int, @unchecked Sendable {
        case invalid = 0
        case normalClosure = 1000
        case goingAway = 1001
        case protocolError = 1002
        case unsupportedData = 1003
        case noStatusReceived = 1005
        case abnormalClosure = 1006
        case invalidFramePayloadData = 1007
        case policyViolation = 1008
        case messageTooBig = 1009
        case mandatoryExtensionMissing = 1010
        case internalServerError = 1011
        case tlsHandshakeFailure = 1015
    }

    public enum Message: Sendable {
        case data(Data)
        case string(String)
    }

    open var maximumMessageSize: Int {
        get { standIn() }
        set { standIn() }
    }

    open func send(_ message: URLSessionWebSocketTask.Message,
                   completionHandler: @escaping @Sendable ((any Error)?) -> Void) { standIn() }

    open func receive(completionHandler: @escaping @Sendable (Result<URLSessionWebSocketTask.Message, any Error>) -> Void) {
        standIn()
    }

    open func cancel(with closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) { standIn() }
}

/// `@protocol NSURLSessionDelegate <NSObject>`, imported as `NS_SWIFT_SENDABLE`.
public protocol URLSessionDelegate: NSObjectProtocol, Sendable {
    /*optional*/ func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?)
    /*optional*/ func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                                 completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void)
}

extension URLSessionDelegate {
    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {}
    public func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                           completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        completionHandler(.performDefaultHandling, nil)
    }
}

/// `@protocol NSURLSessionTaskDelegate <NSURLSessionDelegate>`.
public protocol URLSessionTaskDelegate: URLSessionDelegate {
    /*optional*/ func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)
}

extension URLSessionTaskDelegate {
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {}
}

/// `@protocol NSURLSessionWebSocketDelegate <NSURLSessionTaskDelegate>`.
@available(iOS 13.0, macOS 10.15, *)
public protocol URLSessionWebSocketDelegate: URLSessionTaskDelegate {
    /*optional*/ func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                                 didOpenWithProtocol protocol: String?)
    /*optional*/ func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                                 didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?)
}

@available(iOS 13.0, macOS 10.15, *)
extension URLSessionWebSocketDelegate {
    public func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                           didOpenWithProtocol protocol: String?) {}
    public func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                           didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {}
}
