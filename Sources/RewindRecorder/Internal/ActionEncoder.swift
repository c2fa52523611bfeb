import RewindJSON

/// Turns an action into JSON: an `Encodable` action whole, any other by reflection as its case
/// name (`type`) and associated values.
///
/// `case move(from: Int, to: Int)` becomes `{"type": "move", "from": 1, "to": 2}`; a single
/// unlabelled value goes under `value`; a case without values is `{"type": "reset"}`.
struct ActionEncoder: Sendable {
    let encoder = JSONValueEncoder()

    /// The action as JSON and the pointers (inside it) of non-finite numbers written as strings.
    func encode(_ action: Any) -> (value: JSONValue, nonFinite: [String]) {
        var nonFinite: [String] = []
        if let encodable = action as? any Encodable {
            if let encoded = try? encoder.encodeReportingNonFinite(encodable) {
                return (encoded.value, encoded.nonFinitePointers)
            }
        }
        let mirror = Mirror(reflecting: action)
        var object: JSONObject = [:]
        switch mirror.displayStyle {
        case .enum:
            guard let payload = mirror.children.first, let name = payload.label else {
                return (["type": .string(String(describing: action))], [])
            }
            object["type"] = .string(name)
            let values = Mirror(reflecting: payload.value)
            if values.displayStyle == .tuple {
                for (index, element) in values.children.enumerated() {
                    let key = Self.key(element.label, index: index)
                    object[key] = reflect(element.value, at: "/" + JSONPointer.escape(key), nonFinite: &nonFinite)
                }
            } else {
                object["value"] = reflect(payload.value, at: "/value", nonFinite: &nonFinite)
            }
        default:
            object["type"] = .string(String(describing: type(of: action)))
            for (index, child) in mirror.children.enumerated() {
                let key = Self.key(child.label, index: index)
                object[key] = reflect(child.value, at: "/" + JSONPointer.escape(key), nonFinite: &nonFinite)
            }
        }
        return (.object(object), nonFinite)
    }

    /// A tuple's `.0` labels become `_0`.
    private static func key(_ label: String?, index: Int) -> String {
        guard let label, !label.hasPrefix(".") else { return "_\(index)" }
        return label
    }

    private func reflect(_ value: Any, at pointer: String, nonFinite: inout [String]) -> JSONValue {
        if let encodable = value as? any Encodable, let encoded = try? encoder.encodeReportingNonFinite(encodable) {
            nonFinite += encoded.nonFinitePointers.map { pointer + $0 }
            return encoded.value
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first else { return .null }
            return reflect(wrapped.value, at: pointer, nonFinite: &nonFinite)
        case .enum, .struct, .class, .tuple:
            let (inner, innerNonFinite) = encode(value)
            nonFinite += innerNonFinite.map { pointer + $0 }
            return inner
        case .collection, .set:
            return .array(mirror.children.enumerated().map { index, child in
                reflect(child.value, at: pointer + "/\(index)", nonFinite: &nonFinite)
            })
        case .dictionary:
            var object: JSONObject = [:]
            for pair in mirror.children {
                let parts = Array(Mirror(reflecting: pair.value).children)
                guard parts.count == 2 else { continue }
                let key = String(describing: parts[0].value)
                object[key] = reflect(parts[1].value, at: pointer + "/" + JSONPointer.escape(key), nonFinite: &nonFinite)
            }
            return .object(object)
        default:
            return .string(String(describing: value))
        }
    }
}
