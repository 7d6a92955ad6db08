#if os(Linux)
import Imago

extension ImageProxy {
    /// What `options` keep of a source's metadata, imgproxy's rule: with `strip_metadata` (`sm`,
    /// else ``ImageProxyConfiguration/stripsMetadata``) off, all of it; on, its authorship when
    /// `keep_copyright` (`kcr`, else ``ImageProxyConfiguration/keepsCopyright``) says so, else none.
    enum MetadataChoice: String {
        case all, copyright, none
    }

    func metadataChoice(_ options: ProcessingOptions) -> MetadataChoice {
        guard options.stripMetadata ?? configuration.stripsMetadata else { return .all }
        return options.keepCopyright ?? configuration.keepsCopyright ? .copyright : .none
    }

    /// The metadata written into the output made from `container` for `options`; `nil` for none.
    func metadata(of container: ImageContainer, for options: ProcessingOptions) -> ImageMetadata? {
        guard let metadata = container.metadata else { return nil }
        switch metadataChoice(options) {
        case .all: return metadata.uprighted().nonEmpty
        case .copyright: return metadata.keepingCopyright().nonEmpty
        case .none: return nil
        }
    }
}
#endif
