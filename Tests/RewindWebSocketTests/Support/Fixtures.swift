import RewindWebSocket

/// The endpoints Rewind's server will use.
let rewindEndpoints = [
    WebSocketEndpoint(path: "/app", subprotocol: "rewind.app.v1"),
    WebSocketEndpoint(path: "/inspect", subprotocol: "rewind.inspect.v1"),
]

/// Starts a server on a free 127.0.0.1 port with Rewind's endpoints.
func startServer(
    _ delegate: TestServerDelegate,
    configure: (inout WebSocketServerConfiguration) -> Void = { _ in }
) throws -> (server: WebSocketServer, port: Int) {
    var configuration = WebSocketServerConfiguration(endpoints: rewindEndpoints)
    configure(&configuration)
    let server = WebSocketServer(configuration: configuration, delegate: delegate)
    try server.start()
    return (server, server.port!)
}

/// Connects a client and waits for the outcome.
func connectClient(
    port: Int,
    path: String = "/app",
    subprotocol: String? = "rewind.app.v1",
    origin: String? = nil,
    headers: HTTPHeaders = [:],
    configure: (inout WebSocketClientConfiguration) -> Void = { _ in }
) throws -> (client: WebSocketClient, delegate: TestClientDelegate) {
    var configuration = WebSocketClientConfiguration(
        url: "ws://127.0.0.1:\(port)\(path)", subprotocol: subprotocol, origin: origin, headers: headers
    )
    configure(&configuration)
    let client = try WebSocketClient(configuration: configuration)
    let delegate = TestClientDelegate()
    try client.connect(delegate: delegate)
    _ = delegate.waitForConnect()
    return (client, delegate)
}

/// Deterministic pseudo-random bytes (xorshift64*), so failures reproduce.
func pseudoRandomBytes(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed | 1
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        bytes[index] = UInt8(truncatingIfNeeded: (state &* 0x2545_F491_4F6C_DD1D) >> 56)
    }
    return bytes
}
