#if os(Linux)
import Foundation

extension URLSigner {
    /// The signer named by the environment or, when `IMAGO_KEY_FILE` or `file` is set, by a file of
    /// `NAME=value` lines with the same names; `nil` when neither names a key.
    ///
    /// The names are imgproxy's, `IMGPROXY_KEY` and `IMGPROXY_SALT` (hex; several of each,
    /// comma-separated, for key rotation) and `IMGPROXY_SIGNATURE_SIZE` (bytes of the HMAC a
    /// signature keeps, 1 to 32; default 32) and `IMGPROXY_TRUSTED_SIGNATURES` (signatures accepted
    /// for any path, comma-separated), with `IMAGO_KEY` and `IMAGO_SALT` as aliases; an
    /// `IMGPROXY_` name wins. The salt may be left out (empty). Errors name the variable, never
    /// its value.
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment, file: String? = nil
    ) throws(SigningKeyError) -> URLSigner? {
        var values: [String: String] = [:]
        if let path = file ?? environment["IMAGO_KEY_FILE"].flatMap({ $0.isEmpty ? nil : $0 }) {  // empty: unset
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw SigningKeyError("cannot read the key file \(path)")
            }
            for line in text.split(whereSeparator: \.isNewline) {
                let parts = line.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                values[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
            }
        } else {
            values = environment
        }
        func value(_ names: String...) -> (name: String, value: String)? {
            for name in names {
                if let value = values[name], !value.isEmpty { return (name, value) }
            }
            return nil
        }
        guard let key = value("IMGPROXY_KEY", "IMAGO_KEY") else { return nil }
        let salt = value("IMGPROXY_SALT", "IMAGO_SALT")
        var size = 32
        if let text = value("IMGPROXY_SIGNATURE_SIZE") {
            guard let number = Int(text.value), (1...32).contains(number) else {
                throw SigningKeyError("IMGPROXY_SIGNATURE_SIZE takes 1 to 32 (bytes of the HMAC a signature keeps)")
            }
            size = number
        }
        do {
            var signer = try URLSigner(hexKeys: key.value, hexSalts: salt?.value ?? "", signatureSize: size)
            if let trusted = value("IMGPROXY_TRUSTED_SIGNATURES") {
                signer.trustedSignatures = Set(trusted.value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            }
            return signer
        } catch {
            throw SigningKeyError("\(key.name)/\(salt?.name ?? "IMGPROXY_SALT"): \(error.description)")
        }
    }
}
#endif
