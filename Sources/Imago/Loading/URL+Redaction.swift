import Foundation

extension URL {
    /// The URL as text for logs and error messages, with what commonly carries secrets replaced
    /// by `redacted`: the user and password, the query string (signed URLs, API keys) and the
    /// fragment (OAuth tokens). Scheme, host, port and path stay, so the message still says
    /// which image failed. ``ImagePipeline/Error/description`` and the pipeline's logs use it
    /// unless the caller opts out.
    public var redactedDescription: String {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: true) else {
            return "(an unreadable URL)"
        }
        if components.percentEncodedUser != nil || components.percentEncodedPassword != nil {
            components.percentEncodedUser = "redacted"
            components.percentEncodedPassword = nil
        }
        if components.percentEncodedQuery != nil { components.percentEncodedQuery = "redacted" }
        if components.percentEncodedFragment != nil { components.percentEncodedFragment = "redacted" }
        return components.string ?? "(an unreadable URL)"
    }

    /// ``redactedDescription`` when `redacting`, else the whole URL.
    func description(redacting: Bool) -> String {
        redacting ? redactedDescription : absoluteString
    }
}
