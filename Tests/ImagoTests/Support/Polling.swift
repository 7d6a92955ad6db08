/// Waits until `condition` holds, checking every 10 ms, for at most `limit`; returns whether it
/// held. For effects that happen on other threads (a connection closing), never for speed: the
/// bound is generous because the whole suite shares two cores with CPU-heavy codec tests.
func eventually(
    within limit: Duration = .seconds(60), _ condition: () async -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while clock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
