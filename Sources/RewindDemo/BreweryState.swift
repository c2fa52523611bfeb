import Foundation
import Rewind

/// A brewery as the Open Brewery DB returns one.
public struct Brewery: Codable, Sendable, Equatable {
    /// The brewery's postal address.
    public struct Address: Codable, Sendable, Equatable {
        var street: String
        var city: String
        var state: String
        var postalCode: String
        var country: String
    }
    /// Where it is on the map.
    public struct Location: Codable, Sendable, Equatable {
        var latitude: Double
        var longitude: Double
    }

    var id: String
    var name: String
    var breweryType: String
    var address: Address
    var location: Location
    var phone: String
    var websiteURL: String
    var tags: [String]

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
    var city: String
    /// `results`, `empty` or `failed`.
    public var outcome: String
    var count: Int
}

/// The brewery screen's state: the city field, its validation and what the search returned.
public struct BreweryState: Codable, Sendable, Equatable {
    /// What the list area shows.
    public enum Phase: String, Codable, Sendable {
        case idle, loading, loaded, empty, failed
    }

    var city = ""
    var validationError: String?
    var phase: Phase = .idle
    var breweries: [Brewery] = []
    var error: String?
    /// The city of the last search sent (what `retry` sends again).
    public var searchedCity: String?
    var recentSearches: [BrewerySearch] = []
    var requests = 0

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
