import RewindJSON
import Testing
@testable import RewindReplay

/// `find`'s hint for a path that never exists (issue 41): a name typed short, or with a letter
/// dropped, finds the longer name it starts.
@Suite("The nearest path that exists")
struct NearestPathTests {
    static let state: JSONValue = ["totalCents": 249, "cart": ["items": [["productID": 3]]], "tax": 12, "user": ["name": "Ada"]]

    @Test("a name typed short or with a letter dropped finds the name it starts; a whole name wins at the same distance",
          arguments: [
              ("/totl", "/totalCents"), ("/totalCent", "/totalCents"), ("/total", "/totalCents"), ("/totlCents", "/totalCents"),
              ("/cart/itms/0/prodct", "/cart/items/0/productID"), ("/tx", "/tax"), ("/taxx", "/tax"),
              ("/user/nme", "/user/name"), ("/zzz", nil),
          ])
    func nearest(path: String, expected: String?) throws {
        let found = JSONPointer.nearest(to: try JSONPointer(path), in: Self.state)
        #expect(found?.description == expected, "\(path) → \(String(describing: found?.description))")
    }
}
