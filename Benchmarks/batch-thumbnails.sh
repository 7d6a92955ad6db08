#!/usr/bin/env bash
# Thumbnails of a batch of photographs, whole processes: `imago fetch --thumbnail 256` beside a
# pyvips script doing the same (download each URL, thumbnail it to 256, pixels in memory), each
# under /usr/bin/time -v; prints the medians of user + system CPU and of peak RSS and their ratios.
#
#   Benchmarks/batch-thumbnails.sh IMAGO PYTHON DIR [REPETITIONS] [SIZE]
#
# IMAGO: a release `imago` binary; PYTHON: a python with pyvips (see Benchmarks/README.md);
# DIR: the images (every .jpg/.jpeg/.png/.webp file in it), served by `python3 -m http.server` on
# 127.0.0.1 for the run. REPETITIONS (default 5) runs of each, interleaved. SIZE: default 256.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
imago=$1 python=$2 dir=$3 repetitions=${4:-5} size=${5:-256}
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/imago-batch.XXXXXX")
port=$((20000 + RANDOM % 20000))
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$dir" > "$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 50); do
  python3 - "$port" 2> /dev/null <<'PY' && break || sleep 0.1
import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
PY
done

urls=()
while IFS= read -r file; do urls+=("http://127.0.0.1:$port/$(basename "$file")"); done < <(
  find "$dir" -maxdepth 1 -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' -o -iname '*.webp' \) | sort)
[ ${#urls[@]} -gt 0 ] || { echo "no images in $dir" >&2; exit 2; }

cat > "$work/vips.py" <<'PY'
import sys, urllib.request, pyvips
pyvips.cache_set_max(0)
size = int(sys.argv[1])
for url in sys.argv[2:]:
    data = urllib.request.urlopen(url).read()
    image = pyvips.Image.thumbnail_buffer(data, size)
    image.write_to_memory()
PY

# One measured run: "cpu_seconds peak_kb" of the whole process.
measure() {
  /usr/bin/time -v -o "$work/time" "$@" > /dev/null 2> "$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
  awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} /Maximum resident/ {m=$2} END {printf "%.3f %d\n", u+s, m}' "$work/time"
}

echo "batch: ${#urls[@]} files from $dir → $size px, $repetitions interleaved repetitions; load average $(cut -d' ' -f1-3 /proc/loadavg)"
# A warm-up of each (page cache, first-run costs), not counted.
measure "$imago" fetch --thumbnail "$size" --no-disk-cache "${urls[@]}" > /dev/null
measure "$python" "$work/vips.py" "$size" "${urls[@]}" > /dev/null
for _ in $(seq "$repetitions"); do
  measure "$imago" fetch --thumbnail "$size" --no-disk-cache "${urls[@]}" >> "$work/imago"
  measure "$python" "$work/vips.py" "$size" "${urls[@]}" >> "$work/vips"
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
imago_cpu=$(cut -d' ' -f1 "$work/imago" | median) vips_cpu=$(cut -d' ' -f1 "$work/vips" | median)
imago_rss=$(cut -d' ' -f2 "$work/imago" | median) vips_rss=$(cut -d' ' -f2 "$work/vips" | median)
echo "imago fetch: CPU $imago_cpu s (runs: $(cut -d' ' -f1 "$work/imago" | tr '\n' ' ')), peak RSS $((imago_rss / 1024)) MB"
echo "pyvips:      CPU $vips_cpu s (runs: $(cut -d' ' -f1 "$work/vips" | tr '\n' ' ')), peak RSS $((vips_rss / 1024)) MB"
awk -v a="$imago_cpu" -v b="$vips_cpu" -v c="$imago_rss" -v d="$vips_rss" \
  'BEGIN {printf "ratio imago / libvips: CPU %.2fx, peak RSS %.2fx\n", a / b, c / d}'
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
