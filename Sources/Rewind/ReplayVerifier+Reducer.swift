extension ReplayVerifier {
    /// A verifier for a Rewind ``Reducer``; the effects it returns are not run (the actions they
    /// sent are in the recording).
    public init(reducer: @escaping Reducer<State, Action>) {
        self.init(step: { state, action in _ = reducer(&state, action) })
    }
}
