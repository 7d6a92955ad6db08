extension ImageFormat {
    /// What kind of picture WebP output is tuned for: libwebp's presets (`WebPConfigPreset`), by
    /// the names libwebp and imgproxy (`IMGPROXY_WEBP_PRESET`) give them. Each sets the loop
    /// filter, sharpness and noise shaping before quality and effort apply. libwebp's only: Apple's
    /// ImageIO has no such setting.
    public enum WebPPreset: String, Sendable, Hashable, CaseIterable {
        /// libwebp's defaults: what every encoder without a preset does.
        case `default`
        /// A digital picture, such as a portrait or an indoor shot.
        case picture
        /// An outdoor photograph, in natural light.
        case photo
        /// A hand or line drawing, with high-contrast details.
        case drawing
        /// A small, colourful image.
        case icon
        /// Text-like pictures.
        case text
    }
}
