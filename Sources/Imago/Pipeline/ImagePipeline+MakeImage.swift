import Foundation

extension ImagePipeline {
    /// The shared work for one processed image: a processed copy on disk, a kept decode of its
    /// original (the tier of decoded originals), or the original bytes (shared with every other
    /// variant of the same URL), decoded and processed once.
    ///
    /// An async function's frame lives as long as the function waits, and this one waits for the
    /// whole download, queued behind every other: each request waiting at once holds the frames of
    /// the whole path down to the scheduler. So the tier lookup and the decode run out of line and
    /// the load inline, as the download loop is in `fetchData` (500 thumbnails asked at once: 34.5
    /// KB of heap per waiting request instead of 43).
    func makeImage(
        for request: ImageRequest, context: InFlightTable<WorkKey, ImageResponse>.Context
    ) async throws(Error) -> ImageResponse {
        var staleProcessed: DiskCache.Entry?
        switch readProcessedFromDisk(for: request) {
        case .fresh(let response): return response
        case .expired(let entry): staleProcessed = entry
        case .none: break
        }
        let need = originalNeed(for: request)
        if let need, let response = try await imageFromTier(need, for: request) { return response }
        let loaded = try await loadOriginal(for: request, context: context)
        return try await makeImage(from: loaded, need: need, staleProcessed: staleProcessed, for: request)
    }

    /// The image for `request` made from a kept decode of its source (the tier of decoded
    /// originals), after waiting for a decode of the source under way; `nil` when the tier is off
    /// or holds nothing that covers it. Out of line, as `makeImage(from:need:staleProcessed:for:)`.
    @inline(never)
    private func imageFromTier(_ need: OriginalNeed, for request: ImageRequest) async throws(Error) -> ImageResponse? {
        guard request.cachePolicy.readsMemory, decodedOriginals.byteLimit > 0 else { return nil }
        // A decode of the source under way (another size of a `srcset`) is waited for: what
        // it keeps may serve this request without a download. (Without a tier nothing is
        // kept: a request arriving meanwhile joins the decode of the same bytes instead.)
        await originalDecodes.wait { $0.key.source == need.source }
        guard let entry = decodedOriginals.lookup(need.source, requiredScale: need.requiredScale, now: configuration.now())
        else { return nil }
        try checkSourceLimits(
            bytes: entry.encodedByteCount, size: entry.sourceSize, frames: entry.container.frameCount, for: request)
        let processed = try process(entry.container, for: request)
        try checkCancellation(request)
        storeInMemory(processed, for: request)
        return ImageResponse(
            container: processed, source: .memory, expiresAt: entry.expiresAt, isStorable: entry.isStorable,
            lastModified: entry.lastModified)
    }

    /// The original bytes for `request`, with its previews while they arrive. Inlined: a frame of
    /// its own would be one more that every waiting request holds.
    @inline(__always)
    private func loadOriginal(
        for request: ImageRequest, context: InFlightTable<WorkKey, ImageResponse>.Context
    ) async throws(Error) -> LoadedData {
        let dataRequestHandle = Locked<InFlightTable<WorkKey, LoadedData>.WaiterHandle?>(nil)
        context.observePriority { priority in dataRequestHandle.withLock { $0 }?.updatePriority(priority) }
        var dataRequest = request
        dataRequest.priority = context.priority
        // Previews decode while the body arrives and stop before the final decode starts, so the
        // two never hold their pixels at once and no preview follows the final image.
        let previews = previewRenderer(for: request, context: context)
        var bodies: (@Sendable (WorkUpdate) -> Void)?
        if let previews {
            bodies = { update in
                if case .body(let body) = update { previews.receive(body) }
            }
        }
        let loaded: LoadedData
        do throws(Error) {
            loaded = try await loadData(
                for: dataRequest, progress: context.report, updates: bodies,
                onWaiting: { handle in dataRequestHandle.withLock { $0 = handle } })
        } catch {
            await previews?.stop()
            throw error
        }
        await previews?.stop()
        try checkCancellation(request)
        return loaded
    }

    /// Decodes `loaded` (through the tier when `need` is set), processes and stores the image.
    /// Out of line: what it holds is not held by the frame that waits for the download.
    @inline(never)
    private func makeImage(
        from loaded: LoadedData, need: OriginalNeed?, staleProcessed: DiskCache.Entry?, for request: ImageRequest
    ) async throws(Error) -> ImageResponse {
        if let staleProcessed, let response = revalidated(staleProcessed, by: loaded, for: request) {
            return response
        }

        try checkSourceLimits(bytes: loaded.data.count, size: nil, for: request)

        var timing = loaded.timing
        let clock = ContinuousClock()
        let decodeStart = clock.now
        let decoded: ImageContainer
        do throws(Error) {
            if let need {
                decoded = try await decodedOriginal(loaded, need: need, for: request).container
            } else {
                let header = ImageHeader.probe(loaded.data)
                try checkSourceLimits(
                    bytes: nil, size: header.map { PixelSize(width: $0.width, height: $0.height) },
                    frames: declaredFrames(loaded.data, for: request), for: request)
                decoded = try await decodeBudget.withReservation(bytes: Self.estimatedBytes(header, reduction: 1, unknownPixels: unknownSourcePixels(for: request))) {
                    () throws(Error) -> ImageContainer in
                    decodeCounter.add(1, ordering: .relaxed)
                    return try decode(loaded.data, for: request)
                }
            }
        } catch {
            // Only bytes that are not an image this pipeline decodes are removed: a decode stopped
            // by cancellation, or refused by this request's own limits, says nothing about them.
            if error.condemnsTheBytes {
                diskWriter.removeOriginal(loaded, for: request)  // stored by the data stage, or read from disk
            }
            throw error
        }
        timing.decode = clock.now - decodeStart
        metrics.decodeDuration.recordInterval(since: decodeStart, now: clock.now)
        logRepairs(of: decoded, for: request)
        let processStart = clock.now
        let processed = try process(decoded, for: request)
        if request.isProcessed { timing.process = clock.now - processStart }
        try checkCancellation(request)

        storeInMemory(processed, for: request)
        // A new download, or a stale variant whose original changed: (re)store the variant.
        if loaded.source == .network || staleProcessed != nil {
            diskWriter.storeProcessed(processed, for: request, original: loaded)
        }
        return ImageResponse(
            container: processed, source: loaded.source, encodedByteCount: loaded.data.count, timing: timing,
            resumedByteCount: loaded.resumedByteCount, expiresAt: expiresAt(of: loaded), isStorable: !loaded.storage.isForbidden,
            lastModified: loaded.lastModified)
    }

    /// What the disk holds for a processed request.
    private enum ProcessedRead {
        /// A fresh variant (or an expired one, when expired entries are served), decoded.
        case fresh(ImageResponse)
        /// An expired variant: valid again only if its original turns out unchanged.
        case expired(DiskCache.Entry)
        case none
    }

    /// A processed variant stored on disk by an earlier run. A fresh one is decoded as it is; an
    /// expired one waits for its original's revalidation (it expires with its original).
    private func readProcessedFromDisk(for request: ImageRequest) -> ProcessedRead {
        guard diskWriter.keepsProcessedImages(for: request), request.cachePolicy.readsDisk,
            let diskCache = configuration.diskCache,
            let entry = diskCache.entry(forKey: request.processedKey, allowExpired: true)
        else { return .none }
        if entry.isExpired, !configuration.servesExpiredEntries { return .expired(entry) }
        return decodeProcessed(entry, for: request, source: .disk).map { .fresh($0) } ?? .none
    }

    /// The expired variant `entry`, if it was made from exactly the bytes `loaded` holds (the
    /// original was revalidated by a 304, or is unchanged): it gets the original's new expiry and
    /// is served. Nil when the original changed: the caller processes it anew.
    private func revalidated(_ entry: DiskCache.Entry, by loaded: LoadedData, for request: ImageRequest) -> ImageResponse? {
        guard entry.metadata[DiskWriter.originalFingerprintKey] == loaded.fingerprint, !loaded.storage.isForbidden,
            let response = decodeProcessed(entry, for: request, source: loaded.source == .network ? .disk : loaded.source)
        else { return nil }
        diskWriter.restoreProcessed(entry, for: request, original: loaded)
        return response
    }

    /// Decodes a processed variant read from disk; one that no longer decodes is deleted.
    private func decodeProcessed(
        _ entry: DiskCache.Entry, for request: ImageRequest, source: ImageResponse.Source
    ) -> ImageResponse? {
        let data = entry.data
        let clock = ContinuousClock()
        let start = clock.now
        guard let format = configuration.decoders.sniff(data),
            let container = try? configuration.decoders.decode(
                data,
                context: DecodingContext(
                    format: format, url: request.url, limits: configuration.decodingLimits,
                    colorProfileHandling: request.colorProfileHandling, policy: configuration.decodingPolicy))
        else {
            diskWriter.removeProcessed(for: request)
            return nil
        }
        var timing = ImageResponse.Timing()
        timing.diskRead = clock.now - start
        storeInMemory(container, for: request)
        return ImageResponse(container: container, source: source, encodedByteCount: data.count, timing: timing)
    }

    private func decode(_ data: Data, for request: ImageRequest) throws(Error) -> ImageContainer {
        guard let format = configuration.decoders.sniff(data) else {
            // Unknown bytes: the default decoder names what they look like (HTML, empty…).
            return try ImageDecoder.decode(data, url: request.url, limits: configuration.decodingLimits)
        }
        var context = DecodingContext(
            format: format, url: request.url, limits: configuration.decodingLimits,
            maximumPixelSize: request.thumbnailSize, colorProfileHandling: request.colorProfileHandling,
            policy: configuration.decodingPolicy)
        // A thumbnail's colours are converted after it is made, on its pixels only (`process`).
        context.defersColorConversion = request.thumbnailSize != nil
        context.frameLimit = request.maximumAnimationFrames
        context.prefersEmbeddedThumbnail = request.prefersEmbeddedThumbnail
        var container = try configuration.decoders.decode(data, context: context)
        if request.readsMetadata { container.metadata = ImageMetadata.read(from: data) }
        return container
    }

    /// A lenient decode of a damaged source is logged once, at `notice`: the image shows, but not
    /// as its author made it.
    private func logRepairs(of container: ImageContainer, for request: ImageRequest) {
        guard !container.repairs.isEmpty else { return }
        let repairs = container.repairs.map(\.description).joined(separator: "; ")
        configuration.logger.notice(
            "Decoded a damaged \(container.format) from \(configuration.logged(request.url)), as browsers show it: \(repairs)")
    }

    /// The thumbnail, the colour conversion it deferred, then the request's other processors.
    func process(_ container: ImageContainer, for request: ImageRequest) throws(Error) -> ImageContainer {
        var result = container
        if let size = request.thumbnailSize {
            result = try ThumbnailProcessor(maximumPixelSize: size).process(result)
        }
        #if os(Linux)
        result.completeColorConversion()  // before any other processor sees the pixels
        #endif
        for processor in request.processorsAfterThumbnail {
            result = try processor.process(result)
        }
        return result
    }

    private func storeInMemory(_ container: ImageContainer, for request: ImageRequest) {
        guard request.cachePolicy.writesMemory, let memoryCache = configuration.memoryCache else { return }
        let pinned = configuration.pinnedPriority.map { request.priority >= $0 } ?? false
        memoryCache.store(container, forKey: request.processedKey, cost: container.cost, pinned: pinned)
    }

    /// Cancelled work writes nothing: checked before every side effect.
    private func checkCancellation(_ request: ImageRequest) throws(Error) {
        if Task.isCancelled { throw .cancelled(request.url) }
    }
}
