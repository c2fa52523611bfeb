import CLibWebSockets

/// Reads a request's method, path, query and headers out of lws' header table (service thread,
/// while the table is still attached: in `HTTP` and `HTTP_CONFIRM_UPGRADE`).
enum RequestReader {
    /// The method and decoded path, or `nil` when lws has none.
    static func methodAndPath(_ wsi: OpaquePointer) -> (method: String, path: String)? {
        var uri: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        let method = lws_http_get_uri_and_method(wsi, &uri, &length)
        guard method >= 0, let uri else { return nil }
        let path = String(decoding: UnsafeRawBufferPointer(start: uri, count: Int(length)), as: UTF8.self)
        return (methodName(method), path)
    }

    private static func methodName(_ index: Int32) -> String {
        switch Int(index) {
        case LWSHUMETH_GET, LWSHUMETH_COLON_PATH: "GET"
        case LWSHUMETH_POST: "POST"
        case LWSHUMETH_OPTIONS: "OPTIONS"
        case LWSHUMETH_PUT: "PUT"
        case LWSHUMETH_PATCH: "PATCH"
        case LWSHUMETH_DELETE: "DELETE"
        case LWSHUMETH_CONNECT: "CONNECT"
        case LWSHUMETH_HEAD: "HEAD"
        default: "OTHER"
        }
    }

    /// Whether the request line said HTTP/1.1 (lws keeps the version as the `WSI_TOKEN_HTTP`
    /// token); HTTP/1.0 clients cannot take a chunked body.
    static func isHTTP11(_ wsi: OpaquePointer) -> Bool {
        header(wsi, WSI_TOKEN_HTTP)?.uppercased() == "HTTP/1.1"
    }

    /// One header by token, all its occurrences joined as lws joins them.
    static func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        // Room for the separators some lws versions insert between repeated fields.
        var buffer = [CChar](repeating: 0, count: length * 2 + 2)
        let copied = buffer.withUnsafeMutableBufferPointer { lws_hdr_copy(wsi, $0.baseAddress, Int32($0.count), token) }
        guard copied >= 0 else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Every header lws parsed by name, plus the custom ones asked for; names in lower case.
    static func headers(_ wsi: OpaquePointer, custom: [String]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (token, name) in namedTokens {
            if let value = header(wsi, token) { headers.add(name, value) }
        }
        for name in custom {
            let key = name.lowercased().hasSuffix(":") ? name.lowercased() : name.lowercased() + ":"
            let length = Int(lws_hdr_custom_length(wsi, key, Int32(key.utf8.count)))
            guard length > 0 else { continue }
            var buffer = [CChar](repeating: 0, count: length + 1)
            let copied = buffer.withUnsafeMutableBufferPointer {
                lws_hdr_custom_copy(wsi, $0.baseAddress, Int32($0.count), key, Int32(key.utf8.count))
            }
            guard copied >= 0 else { continue }
            headers.add(String(key.dropLast()), buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        return headers
    }

    /// The query arguments, each decoded by lws.
    static func queryArguments(_ wsi: OpaquePointer) -> [String] {
        let total = Int(lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_URI_ARGS))
        guard total > 0 else { return [] }
        var arguments: [String] = []
        var buffer = [CChar](repeating: 0, count: total + 1)
        var index: Int32 = 0
        while true {
            let copied = buffer.withUnsafeMutableBufferPointer {
                lws_hdr_copy_fragment(wsi, $0.baseAddress, Int32($0.count), WSI_TOKEN_HTTP_URI_ARGS, index)
            }
            guard copied >= 0 else { break }
            arguments.append(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
            index += 1
        }
        return arguments
    }

    /// The header tokens that name a real header ("host:"), not a method or lws' own bookkeeping.
    private static let namedTokens: [(lws_token_indexes, String)] = {
        var result: [(lws_token_indexes, String)] = []
        for raw in 0..<_WSI_TOKEN_CLIENT_SENT_PROTOCOLS.rawValue {
            let token = lws_token_indexes(rawValue: raw)
            guard let cName = lws_token_to_string(token) else { continue }
            let name = String(cString: cName)
            guard name.hasSuffix(":"), !name.hasPrefix(":") else { continue }
            result.append((token, String(name.dropLast()).lowercased()))
        }
        return result
    }()
}
