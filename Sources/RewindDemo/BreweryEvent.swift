import Rewind

/// What the brewery screen's view adds to its bloc, and what the search answers with.
public enum BreweryEvent: Codable, Sendable, Equatable {
    case cityChanged(String)
    case submitted
    case retried
    case cleared
    case searchSucceeded(request: Int, city: String, breweries: [Brewery])
    case searchFailed(request: Int, city: String, message: String)

    /// The event's `type` in the log.
    public var type: String {
        switch self {
        case .cityChanged: "breweries/city/changed"
        case .submitted: "breweries/search/submitted"
        case .retried: "breweries/search/retried"
        case .cleared: "breweries/city/cleared"
        case .searchSucceeded: "breweries/search/succeeded"
        case .searchFailed: "breweries/search/failed"
        }
    }

    /// Decodes the object a recording or an inspector holds; an unknown `type` fails.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ActionKey.self)
        let type: String = try c.value("type")
        switch type {
        case "breweries/city/changed": self = .cityChanged(try c.value("city"))
        case "breweries/search/submitted": self = .submitted
        case "breweries/search/retried": self = .retried
        case "breweries/city/cleared": self = .cleared
        case "breweries/search/succeeded":
            self = .searchSucceeded(request: try c.value("request"), city: try c.value("city"), breweries: try c.value("breweries"))
        case "breweries/search/failed":
            self = .searchFailed(request: try c.value("request"), city: try c.value("city"), message: try c.value("message"))
        default: throw c.unknownType(type, expected: "a breweries/… event")
        }
    }

    /// Encodes as one object: `type`, then the values.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ActionKey.self)
        try c.type(type)
        switch self {
        case .submitted, .retried, .cleared: break
        case .cityChanged(let city): try c.value("city", city)
        case .searchSucceeded(let request, let city, let breweries):
            try c.value("request", request)
            try c.value("city", city)
            try c.value("breweries", breweries)
        case .searchFailed(let request, let city, let message):
            try c.value("request", request)
            try c.value("city", city)
            try c.value("message", message)
        }
    }
}
