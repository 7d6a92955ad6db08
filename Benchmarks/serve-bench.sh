#!/usr/bin/env bash
# `imago serve` beside thumbor under wrk: thumbnails per second and p50/p99 latency, same sources,
# same sizes and JPEG qualities (80; 70–89 where every request is new), same run. Results:
# Benchmarks/README.md, "imago serve beside thumbor".
#
# drawings (the default): 30 JPEGs of flat ellipses, 1600x1200, from nginx on loopback; phases
#   cold (every request a new size and quality, so every result is computed; the originals already
#   local to both) and warm (the same 30 URLs again: imago's response tier, thumbor's result
#   storage).
# photos: 30 phone-sized photographs (4032x3024, real content from scikit-image and matplotlib's
#   sample pictures, made by Benchmarks/make-photos.py with Pillow; a third progressive); phases
#   first (the first size of each source: every request a source neither server has seen, fetched,
#   decoded and resized: the decode bound), first-progressive (the same, on the progressive third
#   only), new (new sizes and qualities of sources each server has had once: imago's decoded tier
#   against thumbor's stored originals) and warm. The first two phases also run libvips as
#   imgproxy runs it (Benchmarks/vips-server.py: pyvips' thumbnail_buffer, libvips at concurrency
#   1, two requests per core at a time, no source cache; pyvips-binary in .build-vips-venv).
#
# animated: 30 animated GIFs (400x300, 12 frames of moving ellipses, 80 ms each, made with
#   Pillow), resized and kept animated as GIF: imago with IMGPROXY_MAX_ANIMATION_FRAMES=100,
#   thumbor with its gifsicle engine (USE_GIFSICLE_ENGINE; needs Debian's gifsicle); phases cold
#   and warm. Each server's frame count is checked on one answer first.
#
#   Benchmarks/serve-bench.sh [drawings|photos|animated]   # needs wrk and nginx (Debian), builds imago in
#                                        # release, installs thumbor 7.8.0 from PyPI in
#                                        # .build-thumbor-venv (photos: scikit-image, Pillow and
#                                        # matplotlib in .build-photos-venv)
#   IMAGO_BENCH_SECONDS=20 IMAGO_BENCH_CONNECTIONS=16 Benchmarks/serve-bench.sh photos
#   IMAGO_BENCH_IMAGO=/path/to/other/.build/release/imago Benchmarks/serve-bench.sh  # another build
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mode=${1:-drawings}
case "$mode" in drawings|photos|animated) ;; *) echo "serve-bench: the mode is drawings, photos or animated, not $mode" >&2; exit 2 ;; esac
# What each mode's sources are and what is asked of them.
extension=jpg imago_output=q:80/f:jpeg thumbor_filters='filters:quality(80):format(jpeg)/'
if [ "$mode" = animated ]; then
  extension=gif imago_output=f:gif thumbor_filters=''
  command -v gifsicle > /dev/null || { echo "serve-bench: install gifsicle (apt-get install gifsicle)" >&2; exit 2; }
fi
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
# IMAGO_BENCH_IMAGO: another build's imago (say, an older commit's, for a before-and-after run
# against the same thumbor); otherwise this checkout's, built here in release.
imago=${IMAGO_BENCH_IMAGO:-}
if [ -z "$imago" ]; then
  swift build -c release --product imago 2>&1 | grep -v '^\[' || true
  imago=$root/.build/release/imago
fi
[ -x "$imago" ] || { echo "serve-bench: no imago executable at $imago" >&2; exit 2; }

# Sources, served by nginx. mktemp's folder is private; nginx's workers (www-data when started as
# root) must be able to read the sources.
mkdir -p "$work/sources"
chmod 755 "$work" "$work/sources"
if [ "$mode" = photos ]; then
  photos_venv=$root/.build-photos-venv
  if [ ! -x "$photos_venv/bin/python" ] || ! "$photos_venv/bin/python" -c 'import skimage, PIL, matplotlib' 2> /dev/null; then
    python3 -m venv "$photos_venv"
    "$photos_venv/bin/pip" install -q scikit-image pillow matplotlib
  fi
  "$photos_venv/bin/python" Benchmarks/make-photos.py "$work/sources" 30
  vips_venv=$root/.build-vips-venv
  if [ ! -x "$vips_venv/bin/python" ] || ! "$vips_venv/bin/python" -c 'import pyvips' 2> /dev/null; then
    python3 -m venv "$vips_venv"
    "$vips_venv/bin/pip" install -q 'pyvips[binary]'
  fi
  # The first-size phases need a source URL per request that no server has seen: the 30 files
  # under many folders (symbolic links), each URL used once; the progressive phase has folders of
  # its own (three times as many, a third of the files each): room for 240 first sizes a second.
  folders=$((seconds * 8 > 10 ? seconds * 8 : 10))
  for folder in $(seq 0 $((4 * folders - 1))); do
    mkdir -p "$work/sources/first/$folder"
    for index in $(seq 0 29); do ln -s "$work/sources/$index.jpg" "$work/sources/first/$folder/$index.jpg"; done
  done
  chmod -R a+rX "$work/sources"
elif [ "$mode" = animated ]; then
"$venv/bin/python" - "$work/sources" <<'PY'
import sys, random
from PIL import Image, ImageDraw
for index in range(30):
    random.seed(index)
    background = (random.randrange(256), random.randrange(256), random.randrange(256))
    shapes = [(random.randrange(400), random.randrange(300), random.randrange(10, 80), random.randrange(-12, 12),
               random.randrange(-12, 12), (random.randrange(256), random.randrange(256), random.randrange(256))) for _ in range(12)]
    frames = []
    for step in range(12):
        image = Image.new("RGB", (400, 300), background)
        draw = ImageDraw.Draw(image)
        for x, y, r, dx, dy, colour in shapes:
            cx, cy = x + dx * step, y + dy * step
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=colour)
        frames.append(image)
    frames[0].save(f"{sys.argv[1]}/{index}.gif", save_all=True, append_images=frames[1:], duration=80, loop=0)
PY
else
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
fi
origin_port=18490 imago_port=18491 thumbor_port=18492 vips_port=18493
cat > "$work/nginx.conf" <<NGINX
worker_processes 1; pid $work/nginx.pid; error_log $work/nginx-error.log;
events { worker_connections 1024; }
http { access_log off; server { listen 127.0.0.1:$origin_port; root $work/sources; } }
NGINX
"$nginx" -p "$work" -c "$work/nginx.conf" -g 'daemon off;' & pids+=($!)

IMGPROXY_MAX_ANIMATION_FRAMES=100 "$imago" serve --port $imago_port --allow-unsigned --allow-private-networks --cache-directory "$work/imago-cache" \
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
# gifsicle's engine only where it is needed: thumbor refuses to start with it on and no gifsicle.
if [ "$mode" = animated ]; then
  printf "USE_GIFSICLE_ENGINE = True\nGIFSICLE_PATH = '%s'\n" "$(command -v gifsicle)" >> "$work/thumbor.conf"
fi
"$venv/bin/thumbor" -i 127.0.0.1 --port $thumbor_port --processes "$cores" --conf "$work/thumbor.conf" -l error \
  > "$work/thumbor.log" 2>&1 & pids+=($!)

if [ "$mode" = photos ]; then
  VIPS_CONCURRENCY=1 "$vips_venv/bin/python" Benchmarks/vips-server.py $vips_port $((2 * cores)) 2> "$work/vips.log" & pids+=($!)
fi

wait_for() { for _ in $(seq 1 600); do curl -fs -o /dev/null "$1" && return 0; sleep 0.2; done; echo "serve-bench: $1 never answered" >&2; exit 1; }
wait_for "http://127.0.0.1:$origin_port/0.$extension"
wait_for "http://127.0.0.1:$imago_port/healthz"
wait_for "http://127.0.0.1:$thumbor_port/healthcheck"
if [ "$mode" = photos ]; then wait_for "http://127.0.0.1:$vips_port/health"; fi

source_url() { echo "http://127.0.0.1:$origin_port/$1.$extension"; }
imago_path() { python3 -c 'import sys, urllib.parse; print("/insecure/rs:fit:%s:%s/%s/plain/%s" % (sys.argv[2], sys.argv[2], sys.argv[3], urllib.parse.quote(sys.argv[1], safe="")))' "$(source_url "$1")" "$2" "$imago_output"; }
thumbor_path() { echo "/unsafe/fit-in/$2x$2/$thumbor_filters$(source_url "$1")"; }

# Path lists: cold (drawings) or new (photos), 30 sources x 300 sizes x 20 qualities (each used
# once); first
# (photos), one size of each source under every folder; warm, one size per source. Written by one
# python process (the same paths imago_path and thumbor_path make one at a time).
python3 - "$work" "$origin_port" "$mode" "${folders:-0}" <<'PY'
import sys, urllib.parse
work, port, mode, folders = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
extension = "gif" if mode == "animated" else "jpg"
def source(index, folder=None):
    return f"http://127.0.0.1:{port}/" + (f"first/{folder}/" if folder is not None else "") + f"{index}.{extension}"
def imago(index, size, folder=None, quality=80):
    output = "f:gif" if mode == "animated" else f"q:{quality}/f:jpeg"
    return f"/insecure/rs:fit:{size}:{size}/{output}/plain/" + urllib.parse.quote(source(index, folder), safe="")
def thumbor(index, size, folder=None, quality=80):
    filters = "" if mode == "animated" else f"filters:quality({quality}):format(jpeg)/"
    return f"/unsafe/fit-in/{size}x{size}/{filters}" + source(index, folder)
def vips(index, size, folder=None, quality=80):
    return f"/{size}/{quality}/" + source(index, folder)
for name, path in (("imago", imago), ("thumbor", thumbor), ("vips", vips)):
    if name == "vips" and mode != "photos": continue
    with open(f"{work}/{name}-{'new' if mode == 'photos' else 'cold'}.txt", "w") as cold:
        # 300 sizes x 20 qualities of each source (180,000 variants), so that even thousands of
        # new variants a second never repeat one within a run.
        for quality in range(70, 90):
            for size in range(120, 420):
                for index in range(30): cold.write(path(index, size, quality=quality) + "\n")
    with open(f"{work}/{name}-warm.txt", "w") as warm:
        for index in range(30): warm.write(path(index, 256) + "\n")
    if mode == "photos":
        with open(f"{work}/{name}-first.txt", "w") as first:
            for folder in range(folders):
                for index in range(30): first.write(path(index, 320, folder) + "\n")
        # make-photos.py makes every third file progressive (index % 3 == 2).
        with open(f"{work}/{name}-first-progressive.txt", "w") as first:
            for folder in range(folders, 4 * folders):
                for index in range(2, 30, 3): first.write(path(index, 320, folder) + "\n")
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
if [ "$mode" = animated ]; then
  # Both must answer animations, or the figures compare a GIF with a still.
  for server in imago thumbor; do
    port_var=${server}_port
    path=$("${server}_path" 0 200)
    curl -fs -o "$work/$server-check.gif" "http://127.0.0.1:${!port_var}$path"
    frames=$("$venv/bin/python" -c 'import sys; from PIL import Image; print(getattr(Image.open(sys.argv[1]), "n_frames", 1))' "$work/$server-check.gif")
    echo "$server: $frames frames for a 12-frame source"
    [ "$frames" -eq 12 ] || { echo "serve-bench: $server did not keep the animation" >&2; exit 1; }
  done
fi

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
  # A phase whose list ran out repeated paths (served from a cache): it says so.
  local listed
  listed=$(wc -l < "$work/$1-$2.txt")
  wrk -t2 -c"$connections" -d"${seconds}s" --timeout 30s -s "$work/paths.lua" "http://127.0.0.1:${!port_var}" \
    -- "$work/$1-$2.txt" 2 2>&1 | awk -v server="$1" -v phase="$2" -v listed="$listed" \
    '/^RESULT/ { rate = $2 / ($3 / 1e6)
      printf "| %s | %s | %s | %.1f | %.1f | %d |%s\n", server, phase, sprintf(rate < 100 ? "%.1f" : "%.0f", rate), $4, $5, $6,
      (phase != "warm" && $2 > listed) ? " (list used up: some requests repeated)" : "" }' | tee -a "$work/results"
}
echo "| server | phase | thumbnails/s | p50 ms | p99 ms | errors |"
echo "|---|---|---|---|---|---|"
if [ "$mode" = photos ]; then
  # Each first-size request is a source neither has seen: the list must outlast the run.
  run imago first; run thumbor first; run vips first
  run imago first-progressive; run thumbor first-progressive; run vips first-progressive
  run imago new; run thumbor new
else
  run imago cold; run thumbor cold
fi
run imago warm; run thumbor warm
# imago's rate over each baseline's, per phase, from the lines above.
awk -F'|' '{ gsub(/ /, "", $2); gsub(/ /, "", $3); rate[$2 "," $3] = $4; phases[$3] = 1 }
  END { split("thumbor vips", baselines, " ")
    for (b = 1; b <= 2; b++) { line = "imago / " baselines[b] ":"; found = 0
      for (phase in phases) if (rate[baselines[b] "," phase] > 0) {
        line = line sprintf(" %s %.2fx;", phase, rate["imago," phase] / rate[baselines[b] "," phase]); found = 1 }
      if (found) print line } }' "$work/results"
# What each sends for the same 30 thumbnails (256 px box, quality 80; GIF when animated): the speed is not bought
# with bigger files.
bytes() {
  local port_var=${1}_port total=0
  while read -r path; do
    total=$((total + $(curl -fs -o /dev/null -w '%{size_download}' "http://127.0.0.1:${!port_var}$path")))
  done < "$work/$1-warm.txt"
  echo "$total"
}
echo "($mode, $cores cores, $connections connections, ${seconds} s each, $(date -u +%Y-%m-%d);" \
  "bytes for the 30 warm thumbnails: imago $(bytes imago), thumbor $(bytes thumbor))"
