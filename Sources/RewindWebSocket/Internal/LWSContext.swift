import CLibWebSockets

/// Owns one `lws_context` and the C memory it points into for its whole life: the protocol table,
/// the strings handed to lws, the idle policy. Created and destroyed on the service thread; the
/// memory is freed in `deinit`, after `destroy()`.
final class LWSContext {
    private(set) var pointer: OpaquePointer?
    private let target: LWSCallbackTarget
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private var protocolTable: UnsafeMutablePointer<lws_protocols>?
    private var retryPolicy: UnsafeMutablePointer<lws_retry_bo_t>?

    /// The service buffer each read of a socket fills at most (libwebsockets' default is 4 KiB):
    /// a pass reads up to this much from each connection with input.
    static let readBufferSize = 64 << 10

    init(handler: any LWSEventHandler) {
        target = LWSCallbackTarget(handler: handler)
        LWSLog.configure()
    }

    deinit {
        precondition(pointer == nil, "an lws_context must be destroyed on its service thread")
        strings.forEach { free($0) }
        protocolTable?.deallocate()
        retryPolicy?.deallocate()
    }

    /// A C copy of `string` that lives as long as this context.
    func cString(_ string: String) -> UnsafePointer<CChar> {
        let copy = strdup(string)!
        strings.append(copy)
        return UnsafePointer(copy)
    }

    /// The protocol table for `names` (in order, the first is where plain HTTP lands), all served
    /// by the trampoline, terminated by the zeroed entry lws expects.
    func protocols(named names: [String]) -> UnsafePointer<lws_protocols> {
        let table = UnsafeMutablePointer<lws_protocols>.allocate(capacity: names.count + 1)
        for (index, name) in names.enumerated() {
            var entry = lws_protocols()
            entry.name = cString(name)
            entry.callback = lwsTrampoline
            entry.tx_packet_size = FrameWriter.fragmentSize + 16
            (table + index).initialize(to: entry)
        }
        (table + names.count).initialize(to: lws_protocols())
        protocolTable = table
        return UnsafePointer(table)
    }

    /// The idle policy for `keepAlive`, or `nil` for none.
    func retryPolicy(for keepAlive: WebSocketKeepAlive?) -> UnsafePointer<lws_retry_bo_t>? {
        guard let keepAlive else { return nil }
        var policy = lws_retry_bo_t()
        policy.secs_since_valid_ping = keepAlive.pingAfterSeconds
        policy.secs_since_valid_hangup = keepAlive.hangUpAfterSeconds
        let stored = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
        stored.initialize(to: policy)
        retryPolicy = stored
        return UnsafePointer(stored)
    }

    /// Creates the context from `info` (its `user` is set here); `false` when lws refuses.
    func create(_ info: inout lws_context_creation_info) -> Bool {
        info.user = Unmanaged.passUnretained(target).toOpaque()
        pointer = lws_create_context(&info)
        return pointer != nil
    }

    /// Closes every connection (their CLOSED callbacks run now) and frees the context.
    func destroy() {
        guard let context = pointer else { return }
        lws_context_destroy(context)
        pointer = nil
    }
}
