import Foundation
import Rewind

/// A brewery as the Open Brewery DB returns one.
public struct Brewery: Codable, Sendable, Equatable {
    public struct Address: Codable, Sendable, Equatable {
        public var street: String
        public var city: String
        public var state: String
        public var postalCode: String
        public var country: String
    }
    public struct Location: Codable, Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double
    }

    public var id: String
    public var name: String
    public var breweryType: String
    public var address: Address
    public var location: Location
    public var phone: String
    public var websiteURL: String
    public var tags: [String]

    /// A brewery in `city`, from a response's generator.
    static func make(in city: String, _ random: inout DemoRandom) -> Brewery {
        let name = "\(random.pick(DemoData.breweryWords)) \(random.pick(DemoData.brewerySuffixes))"
        let slug = name.lowercased().filter { $0.isLetter || $0 == " " }.replacingOccurrences(of: " ", with: "-")
        // Coordinates in thousandths of a degree: short decimals that round-trip exactly.
        let latitude = Double(random.int(in: 25_000...55_000)) / 1000
        let longitude = Double(random.int(in: -125_000 ... -70_000)) / 1000
        return Brewery(
            id: slug + "-" + String(random.next() % 10_000),
            name: name, breweryType: random.pick(DemoData.breweryTypes),
            address: Address(street: "\(random.int(in: 1...999)) \(random.pick(DemoData.streets))", city: city,
                             state: random.pick(["OR", "TX", "CO", "NC", "MI", "WI", "CA"]),
                             postalCode: String(random.int(in: 10_000...99_999)), country: "United States"),
            location: Location(latitude: latitude, longitude: longitude),
            phone: "\(random.int(in: 200...999))\(random.int(in: 200...999))\(random.int(in: 1000...9999))",
            websiteURL: "https://\(slug.replacingOccurrences(of: "-", with: "")).example.com",
            tags: random.chance(0.5) ? ["dog-friendly", "food"] : ["taproom"])
    }
}

/// One search the screen made, for its "recent searches" list.
public struct BrewerySearch: Codable, Sendable, Equatable {
    public var city: String
    /// `results`, `empty` or `failed`.
    public var outcome: String
    public var count: Int
}

/// The brewery screen's state: the city field, its validation and what the search returned.
public struct BreweryState: Codable, Sendable, Equatable {
    /// What the list area shows.
    public enum Phase: String, Codable, Sendable {
        case idle, loading, loaded, empty, failed
    }

    public var city = ""
    public var validationError: String?
    public var phase: Phase = .idle
    public var breweries: [Brewery] = []
    public var error: String?
    /// The city of the last search sent (what `retry` sends again).
    public var searchedCity: String?
    public var recentSearches: [BrewerySearch] = []
    public var requests = 0

    /// An empty field, nothing searched.
    public init() {}

    /// Why `city` cannot be searched, or `nil` when it can.
    public static func validate(_ city: String) -> String? {
        let trimmed = city.trimmingCharacters(in: .whitespaces)
        if trimmed.count < 2 { return "Enter at least 2 letters." }
        if !trimmed.allSatisfy({ $0.isLetter || $0 == " " || $0 == "-" || $0 == "'" }) {
            return "A city name has only letters, spaces, hyphens and apostrophes."
        }
        return nil
    }
}
