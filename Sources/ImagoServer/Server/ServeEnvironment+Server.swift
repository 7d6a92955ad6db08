#if os(Linux)
extension ServeEnvironment {
    /// `IMGPROXY_PATH_PREFIX`: the path every route is served under, as imgproxy puts it before
    /// each of its routes (`/health` included). Trailing slashes are dropped (imgproxy would then
    /// answer only paths with a doubled slash); a prefix that does not start with `/`, has an
    /// empty, `.` or `..` segment, or a character outside letters, digits and `-._~` stops the
    /// start (imgproxy would serve nothing, or the router would read it as a pattern).
    static func pathPrefix(_ reader: Reader) throws(ServeEnvironmentError) -> String? {
        guard let text = reader.text("IMGPROXY_PATH_PREFIX") else { return nil }
        var prefix = text
        while prefix.count > 1, prefix.hasSuffix("/") { prefix.removeLast() }
        if prefix == "/" { return nil }
        let segments = prefix.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        guard prefix.hasPrefix("/"),
            segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && $0.allSatisfy(allowed.contains) })
        else {
            throw ServeEnvironmentError(
                variable: "IMGPROXY_PATH_PREFIX",
                message: "takes a path such as /images (segments of letters, digits and -._~), not \"\(text)\"")
        }
        return prefix
    }
}
#endif
