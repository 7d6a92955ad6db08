#if os(Linux)
import Foundation

extension URLSigner {
    /// The signer named by the environment (`IMAGO_KEY`, `IMAGO_SALT`, hex) or, when
    /// `IMAGO_KEY_FILE` or `file` is set, by a file of `IMAGO_KEY=…` and `IMAGO_SALT=…` lines;
    /// `nil` when neither names a key. The salt may be left out (empty).
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment, file: String? = nil
    ) throws(SigningKeyError) -> URLSigner? {
        var values: [String: String] = [:]
        if let path = file ?? environment["IMAGO_KEY_FILE"] {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw SigningKeyError("cannot read the key file \(path)")
            }
            for line in text.split(whereSeparator: \.isNewline) {
                let parts = line.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                values[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
            }
        } else {
            values["IMAGO_KEY"] = environment["IMAGO_KEY"]
            values["IMAGO_SALT"] = environment["IMAGO_SALT"]
        }
        guard let key = values["IMAGO_KEY"], !key.isEmpty else { return nil }
        return try URLSigner(hexKey: key, hexSalt: values["IMAGO_SALT"] ?? "")
    }
}
#endif
