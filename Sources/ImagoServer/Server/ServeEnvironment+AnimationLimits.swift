#if os(Linux)
import Foundation
import Imago

extension ServeEnvironment {
    /// imgproxy's animation limits from its environment, with its units and defaults.
    package struct AnimationLimits: Sendable, Equatable {
        /// `IMGPROXY_MAX_ANIMATION_FRAMES`, 1 or more: the first frames of an animation processed
        /// (imgproxy's default 1 is the proxy's too).
        package var maximumFrames: Int?
        /// `IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION`, megapixels (a float) as pixels; 0 is none.
        package var maximumFramePixels: Int?

        package init() {}

        /// The limits `environment` sets.
        /// - Throws: ``ServeEnvironmentError`` naming the variable whose value does not parse.
        package init(_ environment: [String: String]) throws(ServeEnvironmentError) {
            func value(_ name: String) -> String? {
                environment[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
            }
            if let text = value("IMGPROXY_MAX_ANIMATION_FRAMES") {
                guard let frames = Int(text), (1...999_999_999).contains(frames) else {
                    throw ServeEnvironmentError(
                        variable: "IMGPROXY_MAX_ANIMATION_FRAMES", message: "takes a whole number from 1, not \"\(text)\"")
                }
                maximumFrames = frames
            }
            if let text = value("IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION") {
                guard let megapixels = Double(text), megapixels.isFinite, (0...100_000).contains(megapixels) else {
                    throw ServeEnvironmentError(
                        variable: "IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION", message: "takes megapixels from 0, not \"\(text)\"")
                }
                maximumFramePixels = Int((megapixels * 1_000_000).rounded())
            }
        }

        /// Sets the proxy's ``ImageProxyConfiguration/maximumAnimationFrames`` and
        /// ``ImageProxyConfiguration/maximumAnimationFramePixels`` (0: none) where a variable was given.
        package func apply(to configuration: inout ImageProxyConfiguration) {
            if let maximumFrames { configuration.maximumAnimationFrames = maximumFrames }
            if let maximumFramePixels { configuration.maximumAnimationFramePixels = maximumFramePixels > 0 ? maximumFramePixels : nil }
        }
    }
}
#endif
