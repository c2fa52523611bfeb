import Foundation
import CLibWebSockets

/// Deciding WebSocket upgrades: path, subprotocol and the delegate's word, all before lws answers
/// `101`, so a refusal is a plain HTTP error and no WebSocket ever exists.
extension ServerEngine {
    /// `HTTP_CONFIRM_UPGRADE` (on protocols[0], headers attached). 0 lets the upgrade proceed; 1
    /// means a refusal status was written and lws finishes the transaction.
    func confirmUpgrade(_ wsi: OpaquePointer, upgradeType: UnsafeMutableRawPointer?) -> Int32 {
        let kind = upgradeType.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
        guard kind.lowercased() == "websocket" else { return refuse(wsi, status: 403) }  // e.g. h2c
        guard shutdownCode == nil else { return refuse(wsi, status: 503) }
        guard let (method, path) = RequestReader.methodAndPath(wsi), method == "GET" else {
            return refuse(wsi, status: 405)
        }
        guard let endpoint = endpointsByPath[path] else { return refuse(wsi, status: 404) }
        // lws binds the first offered name it knows, so that one must be this path's subprotocol.
        let offered = (RequestReader.header(wsi, WSI_TOKEN_PROTOCOL) ?? "")
            .split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard offered.first(where: { subprotocols.contains($0) || $0 == Self.httpProtocolName }) == endpoint.subprotocol else {
            return refuse(wsi, status: 403)
        }
        let request = WebSocketUpgradeRequest(
            path: path,
            subprotocol: endpoint.subprotocol,
            queryArguments: RequestReader.queryArguments(wsi),
            headers: RequestReader.headers(wsi, custom: configuration.customHeaderNames),
            remoteAddress: SocketAddress.peer(of: wsi)
        )
        guard let delegate else { return refuse(wsi, status: 403) }
        if let refusal = delegate.refusal(of: request) {
            return refuse(wsi, status: UInt32(clamping: refusal.status), reason: refusal.reason)
        }
        upgrades[wsi] = request
        return 0
    }

    /// `FILTER_PROTOCOL_CONNECTION` (on the protocol lws bound): refuse unless it is the one the
    /// upgrade was confirmed for.
    func checkBoundProtocol(_ wsi: OpaquePointer) -> Int32 {
        guard let request = upgrades[wsi], let bound = lws_get_protocol(wsi)?.pointee.name,
              String(cString: bound) == request.subprotocol else {
            upgrades[wsi] = nil
            return 1
        }
        return 0
    }

    /// `ESTABLISHED`: the handshake is done; the connection exists from here on.
    func opened(_ wsi: OpaquePointer) -> Int32 {
        guard let request = upgrades.removeValue(forKey: wsi) else { return -1 }
        let core = ConnectionCore(
            id: ConnectionID.next(),
            limits: configuration.queueLimits,
            maxMessageSize: endpointsByPath[request.path]?.maxMessageSize ?? configuration.maxMessageSize,
            waker: waker,
            budget: outputBudget
        )
        core.wsi = wsi
        let connection = WebSocketConnection(
            core: core,
            path: request.path,
            subprotocol: request.subprotocol,
            remoteAddress: request.remoteAddress,
            request: request
        )
        connections[wsi] = connection
        control.withLock { $0.openConnections += 1 }
        if let shutdownCode {
            core.requestClose(code: shutdownCode, reason: "server shutting down", wake: false)
        }
        delegate?.didOpen(connection)
        if core.hasPendingOutput { lws_callback_on_writable(wsi) }
        return 0
    }

    /// Answers `status` with `reason` (escaped, cut to lws' limit of under 1 KiB) as the body.
    private func refuse(_ wsi: OpaquePointer, status: UInt32, reason: String = "") -> Int32 {
        upgrades[wsi] = nil
        guard !reason.isEmpty else { return lws_return_http_status(wsi, status, nil) == 0 ? 1 : -1 }
        let escaped = String(Self.escapedHTML(reason).prefix(900))
        return lws_return_http_status(wsi, status, escaped) == 0 ? 1 : -1
    }

    static func escapedHTML(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
