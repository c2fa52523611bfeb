import RewindJSON

extension Store {
    /// Shows a past state; the app's work goes on underneath. Actions its effects send while the
    /// past state is shown are applied to the live state and recorded as usual; an action the app
    /// sends itself (``send(_:fileID:line:function:)``, a user's tap) first resumes, then applies.
    /// Nothing sent is dropped.
    public func jump(to state: State) {
        setJumped(state)
    }

    /// Shows the live state again.
    public func resume() {
        guard jumped != nil else { return }
        setJumped(nil)
    }
}

extension Store where State: Decodable {
    /// Shows a past state given as JSON (as a jump from the wire carries it), as
    /// ``jump(to:)-(State)``.
    ///
    /// - Throws: ``DecodeError`` naming the path that does not decode; the store is left as
    ///   it was.
    package func jump(to json: JSONValue) throws(DecodeError) {
        let state = try DecodeError.decode(State.self, from: json, as: .state)
        jump(to: state)
    }
}

extension Store where Action: Decodable {
    /// Sends an action given as JSON (as a dispatch from the wire carries it).
    ///
    /// - Throws: ``DecodeError`` naming the path that does not decode; nothing is sent.
    @discardableResult
    package func send(json: JSONValue, fileID: String = #fileID, line: Int = #line,
                     function: String = #function) throws(DecodeError) -> StoreTask {
        send(try DecodeError.decode(Action.self, from: json, as: .action(seq: nil)), fileID: fileID, line: line, function: function)
    }
}
