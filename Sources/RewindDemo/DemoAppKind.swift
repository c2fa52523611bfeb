import Foundation
import Rewind

/// The four sample apps, by the name `rewind demo --app` takes.
public enum DemoAppKind: String, CaseIterable, Sendable, Codable {
    /// MVI image screen (the ModelIntent adapter): appear → loading → image or error; tap →
    /// router shows an alert or the description screen.
    case images
    /// ReSwift-style users and login (store + middleware): authenticate, fetch users, set users.
    case users
    /// BLoC brewery search (the Bloc adapter): typing a city, validation, results, empty, error.
    case breweries
    /// MVVM orders with a presenter service for navigation.
    case orders

    /// The version every demo app records with.
    public static let version = "1.0.0"

    /// The app name recorded with the session ("Images demo").
    public var title: String {
        switch self {
        case .images: "Images demo"
        case .users: "Users demo"
        case .breweries: "Breweries demo"
        case .orders: "Orders demo"
        }
    }

    /// A new app of this kind: its back end and its scripted user both come from `seed`.
    @MainActor
    public func make(seed: UInt64, latencyMs: ClosedRange<Int> = 120...900) -> any DemoApp {
        let network = FakeNetwork(seed: seed, latencyMs: latencyMs)
        let user = DemoRandom(seed: seed, salt: "user/" + rawValue)
        switch self {
        case .images: return ImagesIntent(network: network, user: user)
        case .users: return UsersApp(network: network, user: user)
        case .breweries: return BreweriesApp(network: network, user: user)
        case .orders: return OrdersViewModel(network: network, user: user)
        }
    }

    /// The recorder's hash of `value` (its state hash of `version`) as 16 lowercase hex digits,
    /// with the values at `pointers`, and of members named `keys` at any depth, replaced by
    /// `"<redacted>"` first, as the recorder redacts them. (The recorder also replaces copies of
    /// those secrets elsewhere; the demo's states keep theirs in those places only.)
    public static func hashText<T: Encodable>(of value: T, version: StateHashVersion = .v2,
                                              redacting pointers: [String] = [], keys: [String] = []) -> String {
        guard var json = try? JSONValueEncoder().encode(value) else { return String(repeating: "0", count: 16) }
        for pointer in pointers {
            guard let pointer = try? JSONPointer(pointer), pointer.resolve(in: json) != nil else { continue }
            try? json.apply(.replace(path: pointer, value: "<redacted>"))
        }
        if !keys.isEmpty { json = redactingMembers(json, named: Set(keys.map { $0.lowercased() })) }
        let hex = String(json.hash(version), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `value` with the value of every member whose name (case ignored) is in `keys` replaced.
    static func redactingMembers(_ value: JSONValue, named keys: Set<String>) -> JSONValue {
        switch value {
        case .array(let items):
            return .array(items.map { redactingMembers($0, named: keys) })
        case .object(let object):
            var out = object
            for (key, member) in object {
                out[key] = keys.contains(key.lowercased()) ? "<redacted>" : redactingMembers(member, named: keys)
            }
            return .object(out)
        default:
            return value
        }
    }
}
