#if os(Linux)
import Foundation
import Imago

extension ServeEnvironment {
    /// `IMGPROXY_WATERMARK_DATA` (base64), else `_PATH`, else `_URL`, as imgproxy picks among
    /// them; the bytes of the first two are decoded now, so a file that is no image stops the
    /// start rather than every watermarked request. `nil` when none is set.
    static func watermark(_ reader: Reader) throws(ServeEnvironmentError) -> WatermarkImage? {
        let variable: String
        let data: Data
        if let text = reader.text("IMGPROXY_WATERMARK_DATA") {
            variable = "IMGPROXY_WATERMARK_DATA"
            guard let bytes = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !bytes.isEmpty else {
                throw ServeEnvironmentError(variable: variable, message: "takes the image's bytes in base64")
            }
            data = bytes
        } else if let path = reader.text("IMGPROXY_WATERMARK_PATH") {
            variable = "IMGPROXY_WATERMARK_PATH"
            guard let bytes = FileManager.default.contents(atPath: path), !bytes.isEmpty else {
                throw ServeEnvironmentError(variable: variable, message: "names no readable, non-empty file: \"\(path)\"")
            }
            data = bytes
        } else if let text = reader.text("IMGPROXY_WATERMARK_URL") {
            guard let url = URL(string: text), url.scheme != nil else {
                throw ServeEnvironmentError(variable: "IMGPROXY_WATERMARK_URL", message: "takes a URL, not \"\(text)\"")
            }
            return .url(url)
        } else {
            return nil
        }
        do {
            return try WatermarkImage.decoding(data)
        } catch {
            throw ServeEnvironmentError(variable: variable, message: "is not an image this server decodes: \(error)")
        }
    }

    /// `IMGPROXY_WATERMARK_OPACITY`: above 0 and at most 1, as imgproxy requires.
    static func watermarkOpacity(_ reader: Reader) throws(ServeEnvironmentError) -> Double? {
        guard let text = reader.text("IMGPROXY_WATERMARK_OPACITY") else { return nil }
        guard let value = Double(text), value > 0, value <= 1 else {
            throw ServeEnvironmentError(variable: "IMGPROXY_WATERMARK_OPACITY", message: "takes a number above 0 and at most 1, not \"\(text)\"")
        }
        return value
    }
}
#endif
