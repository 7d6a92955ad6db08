#!/usr/bin/env python3
"""Browser parity on a corpus of damaged images that no one on the team chose.

Serves every file given (directories are walked for .jpg/.jpeg/.png/.gif) from a loopback HTTP
server, loads them all in one headless Chromium run (naturalWidth/naturalHeight after the load
event) and through `imago fetch --json` (default, lenient decoding), and prints, per format: of N
files Chromium shows, how many Imago shows at the same size, with every miss and its error, and
any Imago crash.

    Tests/BrowserParity/corpus-parity.py --imago .build/debug/imago CORPUS_DIR...

The corpus is not part of the repository (third-party files of unknown licence); the figures
measured with it are in Tests/BrowserParity/README.md.
"""
import argparse, http.server, json, os, shutil, subprocess, sys, tempfile, threading, functools

EXTENSIONS = {".jpg": "jpeg", ".jpeg": "jpeg", ".png": "png", ".gif": "gif"}


def collect(paths):
    files = []
    for path in paths:
        if os.path.isdir(path):
            for root, _, names in os.walk(path):
                files += [os.path.join(root, n) for n in sorted(names)]
        else:
            files.append(path)
    return [f for f in files if os.path.splitext(f)[1].lower() in EXTENSIONS]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def chromium_sizes(chromium, base, names, timeout):
    profile = tempfile.mkdtemp(prefix="imago-chromium-")
    try:
        env = dict(os.environ, HOME=profile)
        out = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-extensions", f"--user-data-dir={profile}", "--virtual-time-budget=120000",
             "--dump-dom", base + "/page.html"],
            capture_output=True, text=True, timeout=timeout, env=env).stdout
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    begin, end = out.find("PARITY-BEGIN"), out.find("PARITY-END")
    if begin < 0 or end < 0:
        sys.exit("Chromium wrote no results")
    sizes = {}
    for line in out[begin + len("PARITY-BEGIN"):end].split("\n"):
        fields = line.split()
        if len(fields) == 3:
            sizes[fields[0]] = (int(fields[1]), int(fields[2]))
    return sizes


def imago_results(imago, urls, batch=40):
    results, crashes = {}, []

    def run(group):
        proc = subprocess.run([imago, "fetch", "--json", "--no-disk-cache", "--retries", "0", *group],
                              capture_output=True, text=True, timeout=600)
        for line in proc.stdout.splitlines():
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if "url" in obj:
                results[obj["url"]] = obj
        return proc.returncode

    for start in range(0, len(urls), batch):
        group = urls[start:start + batch]
        status = run(group)
        if status < 0 or status > 128:  # killed by a signal: find the file, one at a time
            for url in group:
                status = run([url])
                if status < 0 or status > 128:
                    crashes.append(url)
    return results, crashes


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--imago", default=".build/debug/imago")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--verbose", action="store_true", help="print every file, not only the misses")
    args = parser.parse_args()

    files = collect(args.paths)
    root = tempfile.mkdtemp(prefix="imago-parity-")
    try:
        entries = []
        for index, path in enumerate(files):
            ext = os.path.splitext(path)[1].lower()
            name = f"{index}{ext}"
            shutil.copyfile(path, os.path.join(root, name))
            entries.append((name, path, EXTENSIONS[ext]))
        with open(os.path.join(root, "page.html"), "w") as page:
            page.write("<!doctype html><html><body>\n")
            for name, _, _ in entries:
                page.write(f'<img data-name="{name}" src="{name}">\n')
            page.write("""<pre id=out></pre><script>
window.addEventListener('load', () => {
  const lines = ['PARITY-BEGIN'];
  for (const image of document.images) lines.push(image.dataset.name + ' ' + image.naturalWidth + ' ' + image.naturalHeight);
  lines.push('PARITY-END');
  document.getElementById('out').textContent = lines.join('\\n');
});</script></body></html>""")
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=root))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            chrome = chromium_sizes(args.chromium, base, [e[0] for e in entries], args.timeout)
            imago, crashes = imago_results(args.imago, [f"{base}/{e[0]}" for e in entries])
        finally:
            server.shutdown()
    finally:
        shutil.rmtree(root, ignore_errors=True)

    totals = {}
    for name, path, fmt in entries:
        shown = chrome.get(name, (0, 0))
        result = imago.get(f"{base}/{name}", {})
        ours = (result.get("width", 0), result.get("height", 0)) if result.get("ok") else (0, 0)
        t = totals.setdefault(fmt, {"files": 0, "chromium": 0, "imago": 0, "same": 0, "imago_only": 0, "repaired": 0})
        t["files"] += 1
        t["imago"] += ours != (0, 0)
        t["repaired"] += bool(result.get("repairs"))
        if shown != (0, 0):
            t["chromium"] += 1
            if ours == shown:
                t["same"] += 1
            else:
                why = result.get("error", {}).get("message", "") if not result.get("ok") else f"{ours[0]}x{ours[1]}"
                print(f"MISS {fmt} {os.path.basename(path)}: Chromium {shown[0]}x{shown[1]}, Imago {why}")
        elif ours != (0, 0):
            t["imago_only"] += 1
            if args.verbose:
                print(f"IMAGO-ONLY {fmt} {os.path.basename(path)}: {ours[0]}x{ours[1]}")
    for url in crashes:
        print(f"CRASH {url}")
    print()
    print("format  files  chromium-shows  imago-same-size  share   imago-shows-chromium-not  repaired")
    for fmt in sorted(totals):
        t = totals[fmt]
        share = 100.0 * t["same"] / t["chromium"] if t["chromium"] else 100.0
        print(f"{fmt:6} {t['files']:6} {t['chromium']:15} {t['same']:16} {share:6.1f}% {t['imago_only']:25} {t['repaired']:9}")
    print(f"crashes: {len(crashes)}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
