import Foundation

/// The page `imago serve --demo` shows at `/`: a responsive grid of thumbnails through the
/// proxy, each with `srcset` at 1x and 2x and a caption with its source's size and format.
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

    public var items: [Item]
    /// Thumbnail size in CSS pixels. Default: 240x180.
    public var width = 240
    public var height = 180
    /// Signs the image paths; `nil` writes unsigned (`insecure`) paths.
    public var signer: URLSigner?

    public init(items: [Item], signer: URLSigner?) {
        self.items = items
        self.signer = signer
    }

    /// The proxy path of `item` at `ratio`.
    public func path(for item: Item, ratio: Int) -> String {
        let options = ["rs:fill:\(width):\(height)", "dpr:\(ratio)", "q:80"]
        if let signer { return signer.signedPath(options: options, source: item.source) }
        return "/insecure" + URLSigner.unsignedPart(options: options, source: item.source, format: nil, encodeSource: false)
    }

    public var html: String {
        let figures = items.map { item in
            """
                <figure><img src="\(escaped(path(for: item, ratio: 1)))" srcset="\(escaped(path(for: item, ratio: 1))) 1x, \(escaped(path(for: item, ratio: 2))) 2x" width="\(width)" height="\(height)" alt="\(escaped(item.caption))"><figcaption>\(escaped(item.caption)) → \(width)x\(height) (2x: \(2 * width)x\(2 * height)), format: auto</figcaption></figure>
            """
        }.joined(separator: "\n")
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>imago serve: demo gallery</title>
            <style>
            body { font: 14px system-ui, sans-serif; margin: 1.5rem; background: #f4f4f4; }
            main { display: grid; grid-template-columns: repeat(auto-fill, minmax(\(width)px, 1fr)); gap: 1rem; }
            figure { margin: 0; background: #fff; padding: .5rem; border-radius: 6px; }
            img { display: block; width: 100%; max-width: \(width)px; height: auto; aspect-ratio: \(width) / \(height); }
            figcaption { color: #555; margin-top: .4rem; font-size: 12px; }
            </style></head>
            <body><h1>imago serve</h1><p>\(items.count) images from a loopback origin, resized by the proxy (rs:fill, 1x and 2x, format negotiated by Accept).</p>
            <main>
            \(figures)
            </main>
            <p id="status">loading…</p>
            <script>
            // Each caption gets what the browser decoded (natural size); the status line and
            // data-loaded say how many images arrived, for people and for the browser test.
            function report() {
              const images = [...document.querySelectorAll("main img")];
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
