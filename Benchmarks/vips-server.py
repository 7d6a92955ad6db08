"""libvips as imgproxy runs it, for serve-bench.sh's photos mode: the baseline engine of a proxy.

GET /SIZE/QUALITY/SOURCE-URL fetches the source, makes a thumbnail that fits SIZE x SIZE with
libvips' thumbnail_buffer (shrink-on-load, as imgproxy does) and answers it as a JPEG of QUALITY.
As imgproxy: libvips at concurrency 1 (VIPS_CONCURRENCY=1, set by the caller), a fixed number of
requests processed at a time (imgproxy's IMGPROXY_WORKERS, two per core by default), no cache of
sources or operations. GET /health answers 200.

    VIPS_CONCURRENCY=1 python vips-server.py PORT WORKERS
"""
import http.server
import sys
import threading
import urllib.request

import pyvips

pyvips.cache_set_max(0)
port, workers = int(sys.argv[1]), int(sys.argv[2])
slots = threading.BoundedSemaphore(workers)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as wrk's connections expect

    def answer(self, status, body, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path == "/health":
            return self.answer(200, b"ok", "text/plain")
        try:
            size, quality, source = self.path[1:].split("/", 2)
            with slots:
                with urllib.request.urlopen(source, timeout=30) as response:
                    data = response.read()
                image = pyvips.Image.thumbnail_buffer(data, int(size), height=int(size), size="down")
                body = image.jpegsave_buffer(Q=int(quality), keep="none")
        except Exception as error:  # a benchmark baseline: any failure is a 500 wrk counts
            return self.answer(500, str(error).encode(), "text/plain")
        self.answer(200, body, "image/jpeg")

    def log_message(self, *arguments):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
