import Testing

@testable import ImagoTestSupport

/// The CIEDE2000 the colour tests judge by, against Sharma, Wu and Dalal's published test data.
@Suite("CIEDE2000 against its published test pairs")
struct ColorDifferenceTests {
    @Test(arguments: [
        ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
        ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
        ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
        ((50.0, 2.5, 0.0), (50.0, 3.1736, 0.5854), 1.0),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
        ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
    ])
    func matchesThePublishedValue(_ first: (Double, Double, Double), _ second: (Double, Double, Double), _ expected: Double) {
        let value = ColorDifference.ciede2000(first, second)
        #expect(abs(value - expected) < 0.0001, "\(value) instead of \(expected)")
        #expect(abs(ColorDifference.ciede2000(second, first) - expected) < 0.0001)
    }
}
