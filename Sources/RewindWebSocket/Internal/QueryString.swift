/// Looks up arguments in a query that libwebsockets has already split at `&` and decoded.
enum QueryString {
    static func value(of name: String, in arguments: [String]) -> String? {
        for argument in arguments {
            if let equals = argument.firstIndex(of: "=") {
                if argument[..<equals] == name[...] { return String(argument[argument.index(after: equals)...]) }
            } else if argument == name {
                return ""
            }
        }
        return nil
    }
}
