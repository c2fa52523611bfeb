/// Word lists the apps' fake back ends build their responses from (names, places, products), so
/// states look like real ones without shipping a data set.
enum DemoData {
    static let firstNames = ["Ava", "Liam", "Maya", "Noah", "Zoe", "Ethan", "Lena", "Omar", "Iris", "Hugo",
                             "Nora", "Felix", "Aisha", "Mateo", "Yuki", "Priya", "Lucas", "Elif", "Jonas", "Sofia"]
    static let lastNames = ["Nguyen", "Okafor", "Schmidt", "Garcia", "Kowalski", "Tanaka", "Haddad", "Silva",
                            "Larsen", "Moreau", "Ivanova", "Patel", "O'Brien", "Rossi", "Andersson", "Kim"]
    static let streets = ["Maple Ave", "Harbor St", "Elm Row", "Mill Lane", "Cedar Blvd", "Station Rd",
                          "Orchard Way", "Bridge St", "Hillcrest Dr", "Canal Walk"]
    static let cities = [("Portland", "OR", "US"), ("Austin", "TX", "US"), ("Denver", "CO", "US"),
                         ("Lyon", "ARA", "FR"), ("Leeds", "WYK", "GB"), ("Porto", "13", "PT"),
                         ("Kraków", "MA", "PL"), ("Osaka", "27", "JP")]
    static let companies = ["Northwind Traders", "Blue Fjord Labs", "Acme Logistics", "Lumen Health",
                            "Quarry & Co", "Tidewater Systems", "Kite Analytics", "Copperleaf Media"]
    static let catchPhrases = ["Synergised next-generation pipelines", "Reliable, by design",
                               "Data you can taste", "Logistics without the lag", "Small teams, big ships"]
    static let departments = ["Engineering", "Sales", "Support", "Finance", "Design", "Operations"]
    static let products = [("Espresso beans 1kg", 2_450), ("Pour-over kettle", 5_900), ("Ceramic dripper", 2_200),
                           ("Paper filters x100", 650), ("Burr grinder", 12_900), ("Milk jug 600ml", 1_850),
                           ("Travel mug", 2_100), ("Digital scale", 3_400), ("Cold brew jar", 2_900),
                           ("Descaler", 990)]
    static let carriers = ["DHL", "UPS", "La Poste", "Royal Mail", "FedEx"]
    static let imageTitles = ["Honeycrisp apple", "Harbour at dawn", "Fern spiral", "Salt flats", "Old lighthouse",
                              "Tram in the rain", "Alpine lake", "Neon alley", "Desert bloom", "Ice cave"]
    static let cameras = ["Fujifilm X-T4", "Canon EOS R6", "Nikon Z6 II", "Sony A7 IV", "Leica Q2", "iPhone 15 Pro"]
    static let tags = ["nature", "city", "macro", "travel", "street", "winter", "food", "architecture",
                       "night", "landscape", "minimal", "portrait"]
    static let breweryWords = ["Hop", "Barrel", "Anchor", "Fox", "Copper", "Rust", "Ridge", "Owl", "Harbor",
                               "Granite", "Wild", "Lantern", "Tall Pine", "River"]
    static let brewerySuffixes = ["Brewing Co.", "Brewery", "Beer Works", "Ales", "Brewhouse", "Fermentation Lab"]
    static let breweryTypes = ["micro", "brewpub", "regional", "nano", "taproom", "contract"]

    /// `YYYY-MM-DDTHH:MM:SSZ` somewhere in 2025, from the generator: a string, not a `Date`, so a
    /// state decoded from the log encodes to exactly what was recorded.
    static func timestamp(_ random: inout DemoRandom) -> String {
        let month = random.int(in: 1...12), day = random.int(in: 1...28)
        let hour = random.int(in: 0...23), minute = random.int(in: 0...59)
        return "2025-\(pad(month))-\(pad(day))T\(pad(hour)):\(pad(minute)):00Z"
    }

    static func pad(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// A full name and a matching lowercase handle.
    static func person(_ random: inout DemoRandom) -> (name: String, handle: String) {
        let first = random.pick(firstNames), last = random.pick(lastNames)
        let handle = (first + "." + last).lowercased().filter { $0.isLetter || $0 == "." }
        return ("\(first) \(last)", handle)
    }
}
