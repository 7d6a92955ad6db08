#if os(Linux)
import Foundation

/// The page `imago serve --demo` shows at `/`: a responsive grid of thumbnails through the
/// proxy, each with `srcset` at 1x and 2x and a caption with its source's size and format, and a
/// row of processing options (smart crop, crop, rotation, blur, sharpening, padding, extension)
/// applied to the same pictures, each captioned with the options it was asked with.
public struct DemoPage: Sendable {
    /// One picture of the gallery.
    public struct Item: Sendable {
        public var source: URL
        public var caption: String

        public init(source: URL, caption: String) {
            self.source = source
            self.caption = caption
        }
    }

    /// One picture of the options row: a source and the processing options it is shown with.
    public struct Variant: Sendable {
        public var source: URL
        /// imgproxy options as written in a path (`["rs:fill:240:180", "g:sm"]`), without `dpr`
        /// and `q`, which the page adds. They should make a `width` x `height` picture, the size
        /// the row lays out.
        public var options: [String]
        /// What the variant shows, after the options in its caption.
        public var caption: String

        public init(source: URL, options: [String], caption: String) {
            self.source = source
            self.options = options
            self.caption = caption
        }
    }

    public var items: [Item]
    /// The options row; empty: no row. Default: empty (``showcase(landscape:portrait:)`` makes one).
    public var variants: [Variant]
    /// Thumbnail size in CSS pixels. Default: 240x180.
    public var width = 240
    public var height = 180
    /// Signs the image paths; `nil` writes unsigned (`insecure`) paths.
    public var signer: URLSigner?

    public init(items: [Item], variants: [Variant] = [], signer: URLSigner?) {
        self.items = items
        self.variants = variants
        self.signer = signer
    }

    /// Seven option sets that each make a 240x180 picture (480x360 at 2x, from sources of at
    /// least 800x600): smart crop, a crop, a quarter turn, blur and sharpening of `landscape` (a
    /// 4:3 picture), padding around it, and `portrait` (a 3:4 picture) fitted and extended to the
    /// full width.
    public static func showcase(landscape: URL, portrait: URL) -> [Variant] {
        [
            Variant(source: landscape, options: ["rs:fill:240:180", "g:sm"], caption: "smart crop"),
            Variant(source: landscape, options: ["c:0.6:0.6:nowe", "rs:fill:240:180"], caption: "a crop at the north-west corner"),
            Variant(source: landscape, options: ["rot:90", "rs:fill:240:180"], caption: "a quarter turn, then fill"),
            Variant(source: landscape, options: ["rs:fill:240:180", "bl:3"], caption: "Gaussian blur, sigma 3"),
            Variant(source: landscape, options: ["rs:fill:240:180", "sh:1.5"], caption: "sharpened, sigma 1.5"),
            Variant(source: landscape, options: ["rs:fill:216:156", "pd:12", "bg:2a6df4"], caption: "12 px of padding"),
            Variant(source: portrait, options: ["rs:fit:240:180", "ex:1", "bg:f4b02a"], caption: "fitted, then extended"),
        ]
    }

    /// The proxy path of `item` at `ratio`.
    public func path(for item: Item, ratio: Int) -> String {
        path(options: ["rs:fill:\(width):\(height)"], source: item.source, ratio: ratio)
    }

    /// The proxy path of `variant` at `ratio`.
    public func path(for variant: Variant, ratio: Int) -> String {
        path(options: variant.options, source: variant.source, ratio: ratio)
    }

    private func path(options: [String], source: URL, ratio: Int) -> String {
        let options = options + ["dpr:\(ratio)", "q:80"]
        if let signer { return signer.signedPath(options: options, source: source) }
        return "/insecure" + URLSigner.unsignedPart(options: options, source: source, format: nil, encodeSource: false)
    }

    public var html: String {
        let figures = items.map { item in
            """
                <figure><img src="\(escaped(path(for: item, ratio: 1)))" srcset="\(escaped(path(for: item, ratio: 1))) 1x, \(escaped(path(for: item, ratio: 2))) 2x" width="\(width)" height="\(height)" alt="\(escaped(item.caption))"><figcaption>\(escaped(item.caption)) → \(width)x\(height) (2x: \(2 * width)x\(2 * height)), format: auto</figcaption></figure>
            """
        }.joined(separator: "\n")
        let variantFigures = variants.map { variant in
            let label = variant.options.joined(separator: "/")
            return """
                <figure><img src="\(escaped(path(for: variant, ratio: 1)))" srcset="\(escaped(path(for: variant, ratio: 1))) 1x, \(escaped(path(for: variant, ratio: 2))) 2x" width="\(width)" height="\(height)" alt="\(escaped(variant.caption))"><figcaption><code>\(escaped(label))</code>: \(escaped(variant.caption))</figcaption></figure>
            """
        }.joined(separator: "\n")
        let optionsRow =
            variants.isEmpty
            ? ""
            : """
            <h2>Processing options</h2><p>imgproxy's options on the same pictures; each caption is the path's options.</p>
            <section class="grid">
            \(variantFigures)
            </section>
            """
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>imago serve: demo gallery</title>
            <style>
            body { font: 14px system-ui, sans-serif; margin: 1.5rem; background: #f4f4f4; }
            .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(\(width)px, 1fr)); gap: 1rem; }
            figure { margin: 0; background: #fff; padding: .5rem; border-radius: 6px; }
            img { display: block; width: 100%; max-width: \(width)px; height: auto; aspect-ratio: \(width) / \(height); }
            figcaption { color: #555; margin-top: .4rem; font-size: 12px; }
            code { font-size: 11px; word-break: break-all; }
            </style></head>
            <body><h1>imago serve</h1><p>\(items.count) images from a loopback origin, resized by the proxy (rs:fill, 1x and 2x, format negotiated by Accept).</p>
            <main class="grid">
            \(figures)
            </main>
            \(optionsRow)
            <p id="status">loading…</p>
            <script>
            // Each caption gets what the browser decoded (natural size); the status line and
            // data-loaded say how many images arrived, for people and for the browser test.
            function report() {
              const images = [...document.querySelectorAll(".grid img")];
              let loaded = 0;
              for (const image of images) {
                if (image.complete && image.naturalWidth > 0) {
                  loaded += 1;
                  image.dataset.natural = image.naturalWidth + "x" + image.naturalHeight;
                  image.nextElementSibling.dataset.natural = image.dataset.natural;
                }
              }
              const status = document.getElementById("status");
              status.textContent = loaded + " of " + images.length + " images loaded";
              document.body.dataset.loaded = loaded + "/" + images.length;
            }
            window.addEventListener("load", report);
            </script>
            </body></html>
            """
    }

    private func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
#endif
