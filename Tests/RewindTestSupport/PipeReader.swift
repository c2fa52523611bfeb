import Foundation

/// Reads a child's pipe to its end on a thread of its own, handing each chunk to `onData`, then
/// calling `onEnd` once every writer has closed it.
///
/// Foundation's `readabilityHandler` is avoided on purpose: on Linux, tearing down its dispatch
/// read source can leave libdispatch's event loop with a freed entry and crash the test process
/// (swift-corelibs-libdispatch issue 949). A blocking read registers nothing with libdispatch.
public enum PipeReader {
    public static func start(_ handle: FileHandle, onEnd: (@Sendable () -> Void)? = nil, onData: @escaping @Sendable (Data) -> Void) {
        startThread(named: "pipe-reader") {
            while true {
                let data = handle.availableData  // blocks until data or the end of the pipe
                if data.isEmpty {
                    onEnd?()
                    return
                }
                onData(data)
            }
        }
    }
}
