import Foundation

#if os(Linux)
extension ImageDecoder {
    /// A JPEG decoded from the whole file, never from the scans a 1/8 decode reads
    /// (``JPEGScanSelector``): the baseline `imago-bench` measures scan selection against.
    package static func decodeWholeJPEG(_ data: Data, maximumPixelSize: Int?) throws(ImagePipeline.Error) -> ImageContainer {
        let context = DecodingContext(format: .jpeg, maximumPixelSize: maximumPixelSize)
        return try JPEGDecoder(selectsScans: false).decode(data, context: context)
    }
}
#endif
