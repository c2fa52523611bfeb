import RewindJSON

extension Store {
    /// Shows a past state and locks the store: actions sent until ``resume()`` are not applied
    /// (they are counted in ``ignoredWhileLocked``). The live state is kept.
    public func jump(to state: State) {
        setJumped(state)
    }

    /// Unlocks the store and shows the live state again.
    public func resume() {
        guard jumped != nil else { return }
        setJumped(nil)
    }
}

extension Store where State: Decodable {
    /// Shows a past state given as JSON (from the log or the inspector) and locks the store.
    ///
    /// - Throws: ``DecodeFailure`` naming the path that does not decode; the store is left as
    ///   it was.
    public func jump(to json: JSONValue) throws(DecodeFailure) {
        let state = try DecodeFailure.decode(State.self, from: json, as: .state)
        jump(to: state)
    }
}

extension Store where Action: Decodable {
    /// Sends an action given as JSON (from the inspector).
    ///
    /// - Throws: ``DecodeFailure`` naming the path that does not decode; nothing is sent.
    public func send(json: JSONValue) throws(DecodeFailure) {
        send(try DecodeFailure.decode(Action.self, from: json, as: .action(seq: nil)))
    }
}
