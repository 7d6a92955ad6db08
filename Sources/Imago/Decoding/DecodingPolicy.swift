/// How a decoder treats an image that is damaged at its source: cut short, with a corrupt scan,
/// a bad checksum or a frame a few pixels short.
///
/// The body must still have arrived whole: a download cut off by the network is a transport error
/// whatever the policy, retried and never cached. The policy only decides what a complete but
/// damaged file becomes.
public enum DecodingPolicy: Sendable, Hashable {
    /// Browser-like, the default: show what decodes, as Chromium does (the rows decoded so far,
    /// libjpeg's grey fill, the complete frames of an animation, missing pixels transparent), and
    /// list each repair in ``ImageContainer/repairs``.
    case lenient
    /// Any damage is ``ImagePipeline/Error/decodingFailed(_:_:reason:)``: for a proxy that prefers
    /// an error to a partial picture.
    case strict
}
