extension ImageContainer {
    /// The container with `transform` applied to the image and to every animation frame; the
    /// format and the frames' durations are kept. A gain map goes through `gainMap`, or is dropped
    /// without one (see ``GainMapTransforming``).
    ///
    /// - Parameter processor: the identifier named in errors.
    package func mapBitmaps(
        processor: String, gainMap: (any GainMapTransforming)? = nil, _ transform: (Bitmap) throws(ImagePipeline.Error) -> Bitmap
    ) throws(ImagePipeline.Error) -> ImageContainer {
        func apply(_ image: PlatformImage) throws(ImagePipeline.Error) -> PlatformImage {
            guard let bitmap = image.bitmap else {
                throw .processingFailed(
                    nil, processor: processor, reason: "the image's pixels could not be read for processing")
            }
            guard let result = try transform(bitmap).platformImage else {
                throw .processingFailed(
                    nil, processor: processor, reason: "the processed pixels could not be made into an image")
            }
            return result
        }
        var result = self
        result.image = try apply(image)
        for index in result.frames.indices {
            // The first frame is usually the still image itself: process it only once.
            let isStill = index == 0 && frames[index].image == image
            result.frames[index].image = isStill ? result.image : try apply(frames[index].image)
        }
        if let map = self.gainMap {
            result.gainMap = try gainMap?.transformedGainMap(map, source: pixelSize, result: result.pixelSize)
        }
        return result
    }
}
