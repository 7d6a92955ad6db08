import Testing

/// Groups the data loader suites, so that `swift test --filter Loading` runs them all.
@Suite struct LoadingTests {}
