import Foundation

/// Decides, hop by hop, whether a download follows a redirect and with which headers; both
/// loaders follow redirects through it, so they refuse the same things.
///
/// - At most ``maximumHops`` redirects, and no URL twice (a cycle); either fails the download.
/// - Never from https to http: a response over TLS cannot send the request (and its headers) in
///   the clear.
/// - Only to http and https URLs (a `Location` may be relative; it resolves against the URL that
///   answered).
/// - On a hop to another origin (scheme, host and port), credential headers are dropped and stay
///   dropped: ``alwaysCredentialHeaders`` and whatever the request marks in
///   ``DataLoader/Request/credentialHeaderNames``.
///
/// A redirect status without a usable `Location` is no redirect: the response is delivered as
/// it is, and the loader reports its status.
package struct RedirectPolicy: Sendable {
    /// The most redirects one download follows.
    static let maximumHops = 10
    /// Headers that are credentials whatever the request says (lower-cased).
    static let alwaysCredentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie"]
    /// Statuses that redirect a GET.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// What to do with a response.
    package enum Decision: Sendable, Hashable {
        /// Not a redirect (or one without a usable `Location`): the response is the answer.
        case deliver
        /// Request `url` with `headers` instead.
        case follow(URL, headers: [String: String])
        /// Stop: the redirect is refused.
        case fail(ImagePipeline.Error)
    }

    /// The URL the caller asked for, named in errors.
    let requestURL: URL
    /// The URL that answered last.
    private(set) var currentURL: URL
    /// The headers of the next request.
    package private(set) var headers: [String: String]
    /// Redirects followed so far.
    private(set) var hops = 0
    private let credentialNames: Set<String>
    /// Every URL requested so far, to refuse a cycle at once.
    private var visited: Set<URL>

    package init(request: DataLoader.Request, headers: [String: String]) {
        self.requestURL = request.url
        self.currentURL = request.url
        self.headers = headers
        self.visited = [request.url.absoluteURL]
        self.credentialNames = Self.alwaysCredentialHeaders.union(request.credentialHeaderNames.map { $0.lowercased() })
    }

    /// Decides what a response with `status` and `location` (its `Location` field) leads to, and
    /// records the hop when it is followed.
    package mutating func decide(status: Int, location: String?) -> Decision {
        guard Self.redirectStatuses.contains(status) else { return .deliver }
        guard let location = location?.trimmingCharacters(in: .whitespaces), !location.isEmpty else { return .deliver }
        guard let target = URL(string: location, relativeTo: currentURL)?.absoluteURL,
            let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = target.host, !host.isEmpty
        else {
            return .fail(.connectionFailed(
                requestURL,
                reason: "the server redirected to \(Self.shown(location)), which is not an http or https URL"))
        }
        if currentURL.scheme?.lowercased() == "https", scheme == "http" {
            return .fail(.connectionFailed(
                requestURL, reason: "the server redirected from https to http, which would send the request unencrypted; refused"))
        }
        guard hops < Self.maximumHops else {
            return .fail(.connectionFailed(
                requestURL, reason: "more than \(Self.maximumHops) redirects, the most one download follows"))
        }
        guard visited.insert(target).inserted else {
            return .fail(.connectionFailed(
                requestURL, reason: "a redirect cycle: the server redirected back to \(target.redactedDescription)"))
        }
        hops += 1
        if !Self.sameOrigin(currentURL, target) {
            headers = headers.filter { !credentialNames.contains($0.key.lowercased()) }
        }
        currentURL = target
        return .follow(target, headers: headers)
    }

    /// A `Location` for an error message: redacted when it reads as a URL, quoted otherwise.
    private static func shown(_ location: String) -> String {
        if let url = URL(string: location), url.scheme != nil { return DownloadValidator.quoted(url.redactedDescription) }
        return DownloadValidator.quoted(location)
    }

    /// Whether `a` and `b` share scheme, host and port (default ports filled in).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func origin(_ url: URL) -> (String, String, Int?) {
            let scheme = url.scheme?.lowercased() ?? ""
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
            return (scheme, url.host?.lowercased() ?? "", port)
        }
        return origin(a) == origin(b)
    }
}
