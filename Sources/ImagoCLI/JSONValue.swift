import Foundation

/// A JSON value with stable key order, for line-oriented `--json` output.
enum JSONValue: Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case object([String: JSONValue])
    case array([JSONValue])

    /// Compact JSON text with sorted keys.
    func encoded() -> String {
        let data = try? JSONSerialization.data(withJSONObject: foundationValue, options: [.sortedKeys, .fragmentsAllowed])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    private var foundationValue: Any {
        switch self {
        case .string(let value): value
        case .int(let value): value
        case .double(let value): value
        case .bool(let value): value
        case .null: NSNull()
        case .object(let object): object.mapValues(\.foundationValue)
        case .array(let array): array.map(\.foundationValue)
        }
    }
}
