extension ImagePipeline {
    /// Changes a request just before it goes out: a fresh authorization token, a signed URL, a
    /// header that depends on the moment. See ``Configuration/requestModifier``.
    ///
    /// Throwing stops that attempt: an ``ImagePipeline/Error`` as it is, `CancellationError` as
    /// ``ImagePipeline/Error/cancelled(_:)``, anything else as
    /// ``ImagePipeline/Error/connectionFailed(_:reason:)`` (transient, so the retry policy applies).
    public typealias RequestModifier = @Sendable (DataLoader.Request) async throws -> DataLoader.Request

    /// The request of one download attempt, after the configured modifier.
    func prepare(_ request: DataLoader.Request) async throws(Error) -> DataLoader.Request {
        guard let modifier = configuration.requestModifier else { return request }
        do {
            return try await modifier(request)
        } catch let error as Error {
            throw error
        } catch is CancellationError {
            throw .cancelled(request.url)
        } catch {
            throw .connectionFailed(
                request.url,
                reason: "the request modifier threw \(error), so the request was not sent; "
                    + "check what Configuration.requestModifier depends on (a token service, say)")
        }
    }
}
