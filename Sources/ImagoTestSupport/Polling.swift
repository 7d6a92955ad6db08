/// Waits until `condition` holds, checking every 10 ms, for at most `limit`; returns whether it
/// held. It runs in the caller's isolation, so a condition may read main-actor state.
///
/// For effects that happen on other threads (a connection closing, a waiter joining), never for
/// speed: the bound is generous because test suites share few cores with CPU-heavy tests.
public func eventually(
    within limit: Duration = .seconds(60), isolation: isolated (any Actor)? = #isolation,
    _ condition: () async -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while clock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
