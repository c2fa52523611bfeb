// `make apple-check` runs this after building `Rewind` as on iOS against the stand-ins: it drives
// `Store.binding` through the SwiftUI stand-in's `Binding` and exits non-zero, naming what
// failed, unless the binding reads the live state, sends through the store with the caller's
// send site, and hands SwiftUI closures isolated to the main actor, and unless the session says
// it ran on iOS, with a device model and the app's tag.
import Foundation
import Rewind
import RewindLog
import SwiftUI

struct FormState: Codable, Sendable {
    var city = "Paris"
}

enum FormAction: Codable, Sendable {
    case cityChanged(String)
}

let formReducer: Reducer<FormState, FormAction> = { state, action in
    switch action {
    case .cityChanged(let city): state.city = city
    }
    return .none
}

var failures: [String] = []
@MainActor func check(_ condition: Bool, _ what: String) {
    if !condition { failures.append(what) }
}

@MainActor
func run() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-apple-check-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("binding.db").path

    let store = Store(initialState: FormState(), reducer: formReducer)
    let recorder = store.record(to: .file(path), app: "AppleShapesCheck", meta: ["tags": ["apple-check"]])
    let line = #line + 1
    let city = store.binding(\.city, send: { .cityChanged($0) })

    check(city.standInGetterIsolation === MainActor.shared, "the binding's getter is not isolated to the main actor")
    check(city.standInSetterIsolation === MainActor.shared, "the binding's setter is not isolated to the main actor")
    check(await city.standInRead() == "Paris", "the binding does not read the initial state")
    await city.standInWrite("Lyon")
    check(store.state.city == "Lyon", "writing the binding did not send through the store")
    check(await city.standInRead() == "Lyon", "the binding does not read the live state after a send")
    store.send(.cityChanged("Nice"))
    check(await city.standInRead() == "Nice", "the binding does not read the live state after another send")

    check(await store.finishRecording().delivered, "the recording did not finish")
    let reader = try LogReader(path: path)
    let session = try reader.session(named: recorder.session.uuid)
    let events = try reader.events(session: session.id, includeKeyframes: false)
    // The recorder took the Apple platforms' path to its device and OS (as on an iPhone: the
    // model from uname, no simulator here), and kept the app's tag.
    check(session.os?.hasPrefix("iOS ") == true, "the session's OS is \(String(describing: session.os)), not iOS's")
    check(session.device.map { !$0.isEmpty && $0 != "unknown" } == true, "the session has no device model: \(String(describing: session.device))")
    check(session.tags == ["apple-check"], "the session's tags are \(session.tags), not [\"apple-check\"]")
    let sent = events.first { $0.seq == 1 }
    check(sent?.site?.file == "AppleShapesCheck/main.swift" && sent?.site?.line == line,
          "the binding's action was recorded at \(String(describing: sent?.site)), not at AppleShapesCheck/main.swift:\(line)")
}

try await run()
if failures.isEmpty {
    print("apple-check: Store.binding reads the live state and sends with the caller's site, on the main actor")
} else {
    for failure in failures { print("apple-check: FAILED: \(failure)") }
    exit(1)
}
