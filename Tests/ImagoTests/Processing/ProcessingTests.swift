import Testing

/// Groups the processing suites, so `swift test --filter Processing` runs all of them.
@Suite enum ProcessingTests {}
