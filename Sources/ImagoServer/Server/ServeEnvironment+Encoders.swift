#if os(Linux)
import Foundation
import Imago

extension ServeEnvironment {
    /// imgproxy's encoder settings from its environment, with its ranges; each `nil` when its
    /// variable is unset (the proxy's ``ProxyEncoderSettings`` defaults are imgproxy's).
    package struct Encoders: Sendable, Equatable {
        /// `IMGPROXY_JPEG_PROGRESSIVE`.
        package var jpegProgressive: Bool?
        /// `IMGPROXY_PNG_INTERLACED`.
        package var pngInterlaced: Bool?
        /// `IMGPROXY_PNG_QUANTIZE`.
        package var pngQuantize: Bool?
        /// `IMGPROXY_PNG_QUANTIZATION_COLORS`, 2...256 (imgproxy's default 256).
        package var pngQuantizationColors: Int?
        /// `IMGPROXY_WEBP_EFFORT`, 1...6.
        package var webpEffort: Int?
        /// `IMGPROXY_WEBP_PRESET`: one of libwebp's preset names.
        package var webpPreset: ImageFormat.WebPPreset?
        /// `IMGPROXY_AVIF_SPEED`, 0...9.
        package var avifSpeed: Int?
        /// `IMGPROXY_JXL_EFFORT`, 1...9.
        package var jxlEffort: Int?

        package init() {}

        /// The settings `reader`'s environment names.
        /// - Throws: ``ServeEnvironmentError`` naming the first variable out of imgproxy's range.
        init(_ reader: Reader) throws(ServeEnvironmentError) {
            jpegProgressive = try reader.boolean("IMGPROXY_JPEG_PROGRESSIVE")
            pngInterlaced = try reader.boolean("IMGPROXY_PNG_INTERLACED")
            pngQuantize = try reader.boolean("IMGPROXY_PNG_QUANTIZE")
            pngQuantizationColors = try reader.integer("IMGPROXY_PNG_QUANTIZATION_COLORS", in: 2...256)
            webpEffort = try reader.integer("IMGPROXY_WEBP_EFFORT", in: 1...6)
            if let name = reader.text("IMGPROXY_WEBP_PRESET") {
                guard let preset = ImageFormat.WebPPreset(rawValue: name) else {
                    let names = ImageFormat.WebPPreset.allCases.map(\.rawValue).joined(separator: ", ")
                    throw ServeEnvironmentError(variable: "IMGPROXY_WEBP_PRESET", message: "takes one of \(names), not \"\(name)\"")
                }
                webpPreset = preset
            }
            avifSpeed = try reader.integer("IMGPROXY_AVIF_SPEED", in: 0...9)
            jxlEffort = try reader.integer("IMGPROXY_JXL_EFFORT", in: 1...9)
        }

        /// Sets the proxy's ``ImageProxyConfiguration/encoderSettings`` where a variable was given;
        /// the quantization colours count only with `IMGPROXY_PNG_QUANTIZE` on (imgproxy's reading).
        package func apply(to configuration: inout ImageProxyConfiguration) {
            if let jpegProgressive { configuration.encoderSettings.jpegProgressive = jpegProgressive }
            if let pngInterlaced { configuration.encoderSettings.pngInterlaced = pngInterlaced }
            if let pngQuantize {
                configuration.encoderSettings.pngQuantizationColors = pngQuantize ? (pngQuantizationColors ?? 256) : nil
            }
            if let webpEffort { configuration.encoderSettings.webpEffort = webpEffort }
            if let webpPreset { configuration.encoderSettings.webpPreset = webpPreset }
            if let avifSpeed { configuration.encoderSettings.avifSpeed = avifSpeed }
            if let jxlEffort { configuration.encoderSettings.jxlEffort = jxlEffort }
        }
    }

    /// `IMGPROXY_SKIP_PROCESSING_FORMATS`: format names as imgproxy spells them (`jpg` too),
    /// joined by commas; an unknown name stops the start, as in imgproxy.
    static func skipProcessingFormats(_ text: String) throws(ServeEnvironmentError) -> [ImageFormat] {
        var formats: [ImageFormat] = []
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let format = ProcessingOptionsParser.imageFormat(named: Substring(name)) else {
                throw ServeEnvironmentError(
                    variable: "IMGPROXY_SKIP_PROCESSING_FORMATS",
                    message: "takes image formats (jpeg, png, gif, webp, avif, jxl, heic…) joined by commas, not \"\(name)\"")
            }
            if !formats.contains(format) { formats.append(format) }
        }
        return formats
    }
}
#endif
