import Foundation
import RewindJSON

// Types the Codable bridge tests encode and decode.

struct Address: Codable, Equatable {
    var street: String
    var zip: String?
}

struct User: Codable, Equatable {
    var id: UInt64
    var name: String
    var address: Address
    var tags: [String]
    var nickname: String?
    var scores: [String: Double]
}

enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case rect(Double, Double)
    case point
    case labeled(String, at: Int)
}

/// A `String` enum that does not adopt `CodingKeyRepresentable`: the standard library alone
/// would write a dictionary keyed by it as a flat array.
enum Status: String, Codable, Hashable {
    case active, archived
}

/// A `String` enum that does adopt `CodingKeyRepresentable`.
enum Priority: String, Codable, Hashable, CodingKeyRepresentable {
    case low, high
}

struct Item: Codable, Equatable {
    var name: String
    var quantity: Int
}

struct Order: Codable, Equatable {
    var id: Int
    var items: [Item]
}

struct Counter: Codable, Equatable {
    var count: UInt8
}

struct Measurements: Codable, Equatable {
    var values: [Double]
    var ratio: Float
}

struct Empty: Codable, Equatable {}

/// Properties in an order no sorting would give.
struct Ordered: Codable, Equatable {
    var zebra = 1
    var apple = 2
    var mango = 3
}

/// Every width of integer at its extremes.
struct Extremes: Codable, Equatable {
    var i8 = Int8.min
    var u8 = UInt8.max
    var i16 = Int16.min
    var u16 = UInt16.max
    var i32 = Int32.min
    var u32 = UInt32.max
    var i64 = Int64.min
    var u64 = UInt64.max
    var int = Int.max
    var uint = UInt.max
}

class Animal: Codable {
    var name: String

    init(name: String) { self.name = name }
}

/// A subclass that keeps its superclass's members under `super`, the pattern `superEncoder` exists for.
final class Dog: Animal {
    var breed: String

    init(name: String, breed: String) {
        self.breed = breed
        super.init(name: name)
    }

    private enum CodingKeys: String, CodingKey { case breed }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        breed = try container.decode(String.self, forKey: .breed)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(breed, forKey: .breed)
        try super.encode(to: container.superEncoder())
    }
}

/// A subclass that shares its superclass's container: both write into one object.
final class Cat: Animal {
    var lives: Int

    init(name: String, lives: Int) {
        self.lives = lives
        super.init(name: name)
    }

    private enum CodingKeys: String, CodingKey { case lives }

    required init(from decoder: any Decoder) throws {
        lives = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .lives)
        try super.init(from: decoder)
    }

    override func encode(to encoder: any Encoder) throws {
        try super.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(lives, forKey: .lives)
    }
}

/// Written by hand through nested keyed and unkeyed containers.
struct Polygon: Codable, Equatable {
    var name: String
    var points: [(x: Int, y: Int)]

    static func == (a: Polygon, b: Polygon) -> Bool {
        a.name == b.name && a.points.elementsEqual(b.points) { $0.x == $1.x && $0.y == $1.y }
    }

    init(name: String, points: [(x: Int, y: Int)]) {
        self.name = name
        self.points = points
    }

    private enum CodingKeys: String, CodingKey { case meta, points }
    private enum MetaKeys: String, CodingKey { case name }
    private enum PointKeys: String, CodingKey { case x, y }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var meta = container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
        var points = container.nestedUnkeyedContainer(forKey: .points)
        for point in self.points {
            // Each point as a pair [x, y] inside an object, to nest both kinds.
            var pointContainer = points.nestedContainer(keyedBy: PointKeys.self)
            try pointContainer.encode(point.x, forKey: .x)
            var y = pointContainer.nestedUnkeyedContainer(forKey: .y)
            try y.encode(point.y)
        }
        // Written after the nested containers were handed out: still lands in place.
        try meta.encode(name, forKey: .name)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta).decode(String.self, forKey: .name)
        var pointsContainer = try container.nestedUnkeyedContainer(forKey: .points)
        points = []
        while !pointsContainer.isAtEnd {
            let point = try pointsContainer.nestedContainer(keyedBy: PointKeys.self)
            var y = try point.nestedUnkeyedContainer(forKey: .y)
            points.append((try point.decode(Int.self, forKey: .x), try y.decode(Int.self)))
        }
    }
}

/// Reads a user-info value while encoding.
struct Tagged: Codable, Equatable {
    static let tagKey = CodingUserInfoKey(rawValue: "tag")!
    var tag: String = ""

    init() {}

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(encoder.userInfo[Self.tagKey] as? String ?? "none")
    }

    init(from decoder: any Decoder) throws {
        tag = decoder.userInfo[Self.tagKey] as? String ?? "none"
    }
}

/// A wire message that embeds arbitrary JSON.
struct Envelope: Codable, Equatable {
    var id: Int
    var payload: JSONValue
    var extra: JSONValue?
}
