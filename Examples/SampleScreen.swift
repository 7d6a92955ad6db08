// A sample screen built on LazyImage, for documentation: it is in no target and builds only in
// an Apple app that depends on ImagoUI.
//
// It shows a spinner while the image loads, says "No network connection" once the load has
// waited 0.5 s for a network that is not there, gives up after 2 s, and then shows the image or
// the error.

import Imago
import ImagoUI
import SwiftUI

struct SampleScreen: View {
    let url: URL

    /// Waits for the network instead of failing at once, so the screen can say it is offline;
    /// the screen's own 2 s timeout ends the wait.
    private static let pipeline = ImagePipeline(configuration: .init(waitsForConnectivity: .seconds(30)))

    var body: some View {
        LazyImage(
            url: url, pipeline: Self.pipeline,
            configuration: .init(offlineHintDelay: .milliseconds(500), timeout: .seconds(2))
        ) { phase in
            switch phase {
            case .empty, .loading(_, waitingForNetwork: false):
                ProgressView()
            case .loading(_, waitingForNetwork: true):
                VStack(spacing: 8) {
                    ProgressView()
                    Text("No network connection")
                }
            case .preview(let preview, _):
                Image(platformImage: preview.image)
                    .resizable()
                    .scaledToFit()
            case .success(let response):
                Image(platformImage: response.image)
                    .resizable()
                    .scaledToFit()
            case .failure(let error):
                VStack(spacing: 8) {
                    Image(systemName: "exclamationmark.triangle")
                    Text(error.description)
                        .font(.footnote)
                        .multilineTextAlignment(.center)
                }
                .padding()
            }
        }
        .frame(maxWidth: .infinity, maxHeight: .infinity)
    }
}

#Preview {
    SampleScreen(url: URL(string: "https://picsum.photos/id/10/1200/800")!)
}
