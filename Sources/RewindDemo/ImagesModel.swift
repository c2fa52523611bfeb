import Rewind

/// One picture the image screen shows, with what a photo API returns about it.
public struct ImageInfo: Codable, Sendable, Equatable {
    /// Who took it.
    /// The photographer.
    public struct Photographer: Codable, Sendable, Equatable {
        var name: String
        var username: String
        var profileURL: String
        var location: String
    }
    /// How it was taken.
    /// The camera settings.
    public struct Exif: Codable, Sendable, Equatable {
        var camera: String
        var focalLength: String
        var aperture: String
        var exposure: String
        var iso: Int
    }

    var id: String
    var title: String
    var url: String
    var width: Int
    var height: Int
    var sizeBytes: Int
    var likes: Int
    var tags: [String]
    var photographer: Photographer
    var exif: Exif

    /// A picture from a response's generator.
    static func make(_ random: inout DemoRandom) -> ImageInfo {
        let person = DemoData.person(&random)
        let id = String(random.next() % 0xFFFF_FFFF, radix: 16)
        let (city, _, country) = random.pick(DemoData.cities)
        var tags: [String] = []
        for _ in 0..<random.int(in: 2...5) {
            let tag = random.pick(DemoData.tags)
            if !tags.contains(tag) { tags.append(tag) }
        }
        return ImageInfo(
            id: id, title: random.pick(DemoData.imageTitles),
            url: "https://images.example.com/photos/\(id).jpg",
            width: random.pick([3000, 4000, 6000]), height: random.pick([2000, 3000, 4000]),
            sizeBytes: random.int(in: 400_000...9_000_000), likes: random.int(in: 0...5_000), tags: tags,
            photographer: Photographer(name: person.name, username: person.handle,
                                       profileURL: "https://images.example.com/@\(person.handle)",
                                       location: "\(city), \(country)"),
            exif: Exif(camera: random.pick(DemoData.cameras), focalLength: "\(random.pick([23, 35, 50, 85]))mm",
                       aperture: "f/\(random.pick(["1.8", "2.8", "4", "5.6", "8"]))",
                       exposure: "1/\(random.pick([60, 125, 250, 500, 1000]))s", iso: random.pick([100, 200, 400, 800, 3200])))
    }
}

/// Where the image screen's router has gone: nowhere, an alert, or the description screen.
public struct ImagesRoute: Codable, Sendable, Equatable {
    /// Which screen.
    /// The screens the router opens.
    public enum Screen: String, Codable, Sendable {
        case alert, description
    }
    var screen: Screen
    var title: String
    var message: String?
    /// The picture the description screen shows.
    public var imageID: String?
}

/// The image screen's one state (MVI's Model): everything the view draws.
public struct ImagesModel: Codable, Sendable, Equatable {
    /// What the screen shows.
    /// The screen's phases.
    public enum Phase: String, Codable, Sendable {
        case idle, loading, showing, failed
    }

    var phase: Phase = .idle
    var isLoading = false
    var image: ImageInfo?
    var error: String?
    var route: ImagesRoute?
    /// Pictures shown so far, newest first (at most 40).
    public var history: [ImageInfo] = []
    /// Requests made (the last one's number: older answers are stale).
    public var requests = 0
    var appearances = 0

    /// An empty screen, before it appears.
    public init() {}
}

/// What the image screen's intents and its loader send.
public enum ImagesAction: Codable, Sendable, Equatable {
    case appear
    case loadSucceeded(request: Int, image: ImageInfo)
    case loadFailed(request: Int, message: String)
    case tapImage
    case like
    case routeDismissed
    /// The screen went away: its loading is cancelled.
    case disappear

    /// The action's `type` in the log.
    public var type: String {
        switch self {
        case .appear: "images/appear"
        case .loadSucceeded: "images/load/succeeded"
        case .loadFailed: "images/load/failed"
        case .tapImage: "images/tap"
        case .like: "images/like"
        case .routeDismissed: "images/route/dismissed"
        case .disappear: "images/disappear"
        }
    }

    /// Decodes the object a recording or an inspector holds; an unknown `type` fails.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ActionKey.self)
        let type: String = try c.value("type")
        switch type {
        case "images/appear": self = .appear
        case "images/load/succeeded": self = .loadSucceeded(request: try c.value("request"), image: try c.value("image"))
        case "images/load/failed": self = .loadFailed(request: try c.value("request"), message: try c.value("message"))
        case "images/tap": self = .tapImage
        case "images/like": self = .like
        case "images/route/dismissed": self = .routeDismissed
        case "images/disappear": self = .disappear
        default: throw c.unknownType(type, expected: "an images/… action")
        }
    }

    /// Encodes as one object: `type`, then the values.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ActionKey.self)
        try c.type(type)
        switch self {
        case .appear, .tapImage, .like, .routeDismissed, .disappear: break
        case .loadSucceeded(let request, let image):
            try c.value("request", request)
            try c.value("image", image)
        case .loadFailed(let request, let message):
            try c.value("request", request)
            try c.value("message", message)
        }
    }
}
