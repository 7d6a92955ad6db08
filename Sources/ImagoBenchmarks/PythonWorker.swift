import Foundation

/// A long-lived python3 process that times Pillow and python-diskcache operations on request, so
/// the python baselines interleave with ours in the same run without paying interpreter start-up.
///
/// Protocol: one command per line on stdin; one line back: the seconds the operation took, timed
/// inside python with `time.perf_counter` (`jpeg` also gives its CPU seconds, `time.process_time`,
/// as the fourth field), or `error <message>`.
final class PythonWorker {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    static let script = #"""
    import sys, time, io, os
    try:
        from PIL import Image
        import PIL
        pil = PIL.__version__
        feats = getattr(__import__("PIL.features", fromlist=["x"]), "version", None)
        jpeg = (feats("libjpeg_turbo") or feats("jpg")) if feats else "?"
    except Exception as e:
        Image = None; pil = None; jpeg = None
    try:
        import diskcache
        dc = diskcache.__version__
    except Exception:
        diskcache = None; dc = None
    print("python=%s pillow=%s pillow-libjpeg-turbo=%s diskcache=%s" % (sys.version.split()[0], pil, jpeg, dc), flush=True)
    caches = {}
    for line in sys.stdin:
        parts = line.split()
        try:
            cmd = parts[0]
            if cmd == "jpeg":          # jpeg <path> <target or 0>
                data = open(parts[1], "rb").read()
                target = int(parts[2])
                t = time.perf_counter(); c = time.process_time()
                im = Image.open(io.BytesIO(data))
                if target:
                    im.draft("RGB", (target, target))
                im.load()
                el = time.perf_counter() - t; cel = time.process_time() - c
                print(el, im.size[0], im.size[1], cel, flush=True)  # wall, size, CPU
            elif cmd == "resize":      # resize <raw rgba path> <w> <h> <max side>
                w, h, m = int(parts[2]), int(parts[3]), int(parts[4])
                im = Image.frombytes("RGBA", (w, h), open(parts[1], "rb").read())
                s = m / max(w, h)
                size = (max(1, round(w * s)), max(1, round(h * s)))
                t = time.perf_counter()
                out = im.resize(size, Image.LANCZOS)
                el = time.perf_counter() - t
                print(el, out.size[0], out.size[1], flush=True)
            elif cmd == "dcwrite":     # dcwrite <dir> <count> <payload path> <round>
                c = caches.get(parts[1]) or caches.setdefault(parts[1], diskcache.Cache(parts[1], size_limit=2**30))
                payload = open(parts[3], "rb").read()
                n = int(parts[2]); r = parts[4]
                keys = ["https://images.example.com/%s/%d.jpg" % (r, i) for i in range(n)]
                t = time.perf_counter()
                for k in keys:
                    c.set(k, payload)
                print(time.perf_counter() - t, flush=True)
            elif cmd == "dcread":      # dcread <dir> <count> <round>
                c = caches[parts[1]]
                n = int(parts[2]); r = parts[3]
                keys = ["https://images.example.com/%s/%d.jpg" % (r, i) for i in range(n)]
                t = time.perf_counter()
                for k in keys:
                    v = c.get(k)
                    assert v is not None and len(v) > 0
                print(time.perf_counter() - t, flush=True)
            else:
                print("error unknown command", flush=True)
        except Exception as e:
            print("error " + repr(e).replace("\n", " "), flush=True)
    """#

    /// Starts the worker, or returns nil when python3 cannot be run.
    init?(scriptDirectory: URL) {
        let scriptURL = scriptDirectory.appendingPathComponent("imago_bench_worker.py")
        do {
            try Self.script.write(to: scriptURL, atomically: true, encoding: .utf8)
            // The venv of the thumbnail benchmark when one is named (it has Pillow), else python3.
            if let python = ProcessInfo.processInfo.environment["IMAGO_BENCH_PYTHON"] {
                process.executableURL = URL(fileURLWithPath: python)
                process.arguments = ["-u", scriptURL.path]
            } else {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["python3", "-u", scriptURL.path]
            }
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        } catch {
            return nil
        }
        guard let line = readLine() else { return nil }
        versionsLine = line
    }

    private(set) var versionsLine = ""

    var hasPillow: Bool { !versionsLine.contains("pillow=None") }
    var hasDiskCache: Bool { !versionsLine.contains("diskcache=None") }

    /// Sends `command` and returns the fields of the answer; throws on `error …`.
    func send(_ command: String) throws -> [Double] {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        guard let line = readLine() else { throw WorkerError(message: "python worker ended") }
        if line.hasPrefix("error") { throw WorkerError(message: line) }
        return line.split(separator: " ").compactMap { Double($0) }
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    private func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer = Data(buffer[(newline + 1)...])
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    struct WorkerError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
