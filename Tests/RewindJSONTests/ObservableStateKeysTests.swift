import Foundation
import RewindJSON
import Testing

// TCA's @ObservableState stores each property as `_name` behind a computed `name`, and adds a
// registrar that encodes nothing. These types are written as the macro expands them (macros
// cannot be built here); the registrar has TCA's Codable shape.

private struct Registrar: Codable, Equatable {
    init() {}
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
}

/// `@ObservableState struct Row: Codable { var title: String; var done = false }`
private struct Row: Codable, Equatable {
    var _title: String
    var _done = false
    var _$observationRegistrar = Registrar()
}

/// `@ObservableState struct Screen: Codable { var rows: [Row] = []; var _draft = ""; var note: String? }`
/// (the app's own `_draft` is stored by the macro as `__draft`), plus an ignored property.
private struct Screen: Codable, Equatable {
    var _rows: [Row] = []
    var __draft = ""
    var _note: String?
    var revision = 0
    var _$observationRegistrar = Registrar()
}

/// Not a state of the macro's: its `_secret` is its own name, and is never read from `secret`.
private struct Plain: Codable, Equatable {
    var _secret: String
    var secret: String
}

@Suite("@ObservableState states read as the app's own names")
struct ObservableStateKeysTests {
    @Test("the macro's stored names are written as the app's, without the registrar, nested and in arrays")
    func encodesOwnNames() throws {
        let screen = Screen(_rows: [Row(_title: "Ship"), Row(_title: "Test", _done: true)], __draft: "d", _note: nil, revision: 3)
        let json = try JSONValueEncoder().encode(screen)
        #expect(json == ["rows": [["title": "Ship", "done": false], ["title": "Test", "done": true]], "_draft": "d", "revision": 3])
        // Foundation's encoder writes the stored names: what Rewind changes.
        let foundation = try JSONValue(parsing: String(decoding: try JSONEncoder().encode(screen), as: UTF8.self))
        #expect(foundation.objectValue?.keys.contains("_rows") == true)
        #expect(foundation.objectValue?.keys.contains("_$observationRegistrar") == true)
    }

    @Test("the app's names decode back into the macro's stored names (a jump's state), and the stored names still decode")
    func decodesOwnNames() throws {
        let screen = Screen(_rows: [Row(_title: "Ship", _done: true)], __draft: "x", _note: "n", revision: 1)
        let own = try JSONValueEncoder().encode(screen)
        #expect(try JSONValueDecoder().decode(Screen.self, from: own) == screen)
        let stored = try JSONValue(parsing: String(decoding: try JSONEncoder().encode(screen), as: UTF8.self))
        #expect(try JSONValueDecoder().decode(Screen.self, from: stored) == screen)
    }

    @Test("a missing member is still an error that names it; a type without the registrar never reads `_name` from `name`")
    func othersUnchanged() throws {
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Row.self, from: ["done": true]) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(Plain.self, from: ["secret": "s"]) }
        let plain = Plain(_secret: "a", secret: "b")
        #expect(try JSONValueEncoder().encode(plain) == ["_secret": "a", "secret": "b"])
    }
}
