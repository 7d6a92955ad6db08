#!/usr/bin/env bash
# `imago serve` beside thumbor under wrk: thumbnails per second and p50/p99 latency, cold (every
# request a new size, so every result is computed; the originals already local to both) and warm
# (the same 30 URLs again: imago's response tier, thumbor's file result storage). Same sources
# (30 JPEGs, 1600x1200, from nginx on loopback), same sizes, JPEG at quality 80, same run.
# Results: Benchmarks/README.md, "imago serve beside thumbor".
#
#   Benchmarks/serve-bench.sh            # needs wrk and nginx (Debian), builds imago in release,
#                                        # installs thumbor 7.8.0 from PyPI in .build-thumbor-venv
#   IMAGO_BENCH_SECONDS=20 IMAGO_BENCH_CONNECTIONS=16 Benchmarks/serve-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${IMAGO_BENCH_SECONDS:-15}
connections=${IMAGO_BENCH_CONNECTIONS:-8}
cores=$(nproc)
work=$(mktemp -d "${TMPDIR:-/tmp}/imago-serve-bench.XXXXXX")
pids=()
# thumbor forks one worker per core: its whole process group is stopped, not only the parent.
cleanup() {
  for pid in "${pids[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
set -m  # each background job in a process group of its own, so cleanup can stop all of it
trap cleanup EXIT

command -v wrk > /dev/null || { echo "serve-bench: install wrk (apt-get install wrk)" >&2; exit 2; }
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] || { echo "serve-bench: install nginx" >&2; exit 2; }
venv=$root/.build-thumbor-venv
if [ ! -x "$venv/bin/thumbor" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q thumbor==7.8.0
fi
swift build -c release --product imago 2>&1 | grep -v '^\[' || true
imago=$root/.build/release/imago

# Sources: 30 JPEGs from Pillow (thumbor's own dependency), served by nginx. mktemp's folder is
# private; nginx's workers (www-data when started as root) must be able to read the sources.
mkdir -p "$work/sources"
chmod 755 "$work" "$work/sources"
"$venv/bin/python" - "$work/sources" <<'PY'
import sys, random
from PIL import Image, ImageDraw
for index in range(30):
    random.seed(index)
    image = Image.new("RGB", (1600, 1200), (random.randrange(256), random.randrange(256), random.randrange(256)))
    draw = ImageDraw.Draw(image)
    for _ in range(60):
        x, y, r = random.randrange(1600), random.randrange(1200), random.randrange(20, 300)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=(random.randrange(256), random.randrange(256), random.randrange(256)))
    image.save(f"{sys.argv[1]}/{index}.jpg", quality=90)
PY
origin_port=18490 imago_port=18491 thumbor_port=18492
cat > "$work/nginx.conf" <<NGINX
worker_processes 1; pid $work/nginx.pid; error_log $work/nginx-error.log;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$origin_port; root $work/sources; } }
NGINX
"$nginx" -p "$work" -c "$work/nginx.conf" -g 'daemon off;' & pids+=($!)

"$imago" serve --port $imago_port --allow-unsigned --allow-private-networks --cache-directory "$work/imago-cache" \
  --concurrency $((2 * cores)) --queue 4096 2> "$work/imago.log" & pids+=($!)

cat > "$work/thumbor.conf" <<CONF
ALLOW_UNSAFE_URL = True
QUALITY = 80
PROGRESSIVE_JPEG = True
AUTO_WEBP = False
STORAGE = 'thumbor.storages.file_storage'
FILE_STORAGE_ROOT_PATH = '$work/thumbor-storage'
RESULT_STORAGE = 'thumbor.result_storages.file_storage'
RESULT_STORAGE_FILE_STORAGE_ROOT_PATH = '$work/thumbor-results'
RESULT_STORAGE_STORES_UNSAFE = True
HTTP_LOADER_MAX_CLIENTS = 64
CONF
"$venv/bin/thumbor" -i 127.0.0.1 --port $thumbor_port --processes "$cores" --conf "$work/thumbor.conf" -l error \
  > "$work/thumbor.log" 2>&1 & pids+=($!)

wait_for() { for _ in $(seq 1 600); do curl -fs -o /dev/null "$1" && return 0; sleep 0.2; done; echo "serve-bench: $1 never answered" >&2; exit 1; }
wait_for "http://127.0.0.1:$origin_port/0.jpg"
wait_for "http://127.0.0.1:$imago_port/healthz"
wait_for "http://127.0.0.1:$thumbor_port/healthcheck"

source_url() { echo "http://127.0.0.1:$origin_port/$1.jpg"; }
imago_path() { python3 -c 'import sys, urllib.parse; print("/insecure/rs:fit:%s:%s/q:80/f:jpeg/plain/%s" % (sys.argv[2], sys.argv[2], urllib.parse.quote(sys.argv[1], safe="")))' "$(source_url "$1")" "$2"; }
thumbor_path() { echo "/unsafe/fit-in/$2x$2/filters:quality(80):format(jpeg)/$(source_url "$1")"; }

# Path lists: cold, 30 sources x 300 sizes (each used once); warm, one size per source. Written by
# one python process (the same paths imago_path and thumbor_path make one at a time).
python3 - "$work" "$origin_port" <<'PY'
import sys, urllib.parse
work, port = sys.argv[1], sys.argv[2]
def source(index): return f"http://127.0.0.1:{port}/{index}.jpg"
def imago(index, size): return f"/insecure/rs:fit:{size}:{size}/q:80/f:jpeg/plain/" + urllib.parse.quote(source(index), safe="")
def thumbor(index, size): return f"/unsafe/fit-in/{size}x{size}/filters:quality(80):format(jpeg)/" + source(index)
for name, path in (("imago", imago), ("thumbor", thumbor)):
    with open(f"{work}/{name}-cold.txt", "w") as cold:
        for size in range(120, 420):
            for index in range(30): cold.write(path(index, size) + "\n")
    with open(f"{work}/{name}-warm.txt", "w") as warm:
        for index in range(30): warm.write(path(index, 256) + "\n")
PY
# Originals made local to both (disk cache, file storage) with a throwaway size; warm URLs primed.
for index in $(seq 0 29); do
  curl -fs -o /dev/null "http://127.0.0.1:$imago_port$(imago_path "$index" 64)"
  curl -fs -o /dev/null "http://127.0.0.1:$thumbor_port$(thumbor_path "$index" 64)"
done
for server in imago thumbor; do
  port_var=${server}_port
  while read -r path; do curl -fs -o /dev/null "http://127.0.0.1:${!port_var}$path"; done < "$work/$server-warm.txt"
done

cat > "$work/paths.lua" <<'LUA'
-- Thread t of n requests paths t, t + n, t + 2n…: no two requests of a run share a path until the
-- list is used up.
local threads = 0
setup = function(thread) thread:set("id", threads); threads = threads + 1 end
local paths, counter = {}, 0
init = function(args)
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  step = tonumber(args[2])
end
request = function()
  local index = (id + counter * step) % #paths
  counter = counter + 1
  return wrk.format("GET", paths[index + 1])
end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %.1f %.1f %d\n", summary.requests, summary.duration,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
LUA
run() {  # server phase
  local port_var=${1}_port
  # Threads start at different offsets of the list, so cold requests do not repeat across threads.
  wrk -t2 -c"$connections" -d"${seconds}s" --timeout 30s -s "$work/paths.lua" "http://127.0.0.1:${!port_var}" \
    -- "$work/$1-$2.txt" 2 2>&1 | awk -v server="$1" -v phase="$2" -v seconds="$seconds" \
    '/^RESULT/ { printf "| %s | %s | %.0f | %.1f | %.1f | %d |\n", server, phase, $2 / ($3 / 1e6), $4, $5, $6 }'
}
echo "| server | phase | thumbnails/s | p50 ms | p99 ms | errors |"
echo "|---|---|---|---|---|---|"
run imago cold; run thumbor cold
run imago warm; run thumbor warm
# What each sends for the same 30 thumbnails (256 px box, quality 80): the speed is not bought
# with bigger files.
bytes() {
  local port_var=${1}_port total=0
  while read -r path; do
    total=$((total + $(curl -fs -o /dev/null -w '%{size_download}' "http://127.0.0.1:${!port_var}$path")))
  done < "$work/$1-warm.txt"
  echo "$total"
}
echo "($cores cores, $connections connections, ${seconds} s each, $(date -u +%Y-%m-%d);" \
  "bytes for the 30 warm thumbnails: imago $(bytes imago), thumbor $(bytes thumbor))"
