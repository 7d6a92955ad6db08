import ArgumentParser
import Imago

/// `--priority veryLow|low|normal|high|veryHigh`, spelled as in the library.
extension ImageRequest.Priority: ExpressibleByArgument {
    public init?(argument: String) {
        guard let match = Self.allCases.first(where: { "\($0)" == argument }) else { return nil }
        self = match
    }

    public var defaultValueDescription: String { "\(self)" }

    public static var allValueStrings: [String] { allCases.map { "\($0)" } }
}
