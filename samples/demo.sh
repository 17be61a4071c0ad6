#!/usr/bin/env bash
# The README's demo: run tabletrack on the bundled sample table.
# Usage: samples/demo.sh [path/to/tabletrack]
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
tt="${1:-$here/../build/tabletrack}"
out="$here/../out/demo"
mkdir -p "$out"

echo "== 1. Where is every figure? (tabletrack locate)"
echo "   rig:   samples/table/rig.json (72x48 table, 6 anchor tags, camera.yaml)"
echo "   frame: samples/table/frame.png (a 3840x2160 camera frame of the table)"
"$tt" locate --rig "$here/table/rig.json" "$here/table/frame.png" > "$out/figures.json"
n=$(grep -o '"id":' "$out/figures.json" | wc -l)
echo "   found $n figures; first three:"
grep -o '{"family":[^}]*}' "$out/figures.json" | head -3 | sed 's/^/     /'
echo "   $(grep -o '"anchors_used":[0-9]*,"reprojection_rms_px":[0-9.]*' "$out/figures.json")"
if [ -f "$here/table/truth.json" ]; then
  echo "   (the sample was rendered, so samples/table/truth.json holds the true positions to compare with)"
fi
echo
echo "Results are in out/demo/: figures.json (positions in table inches, facing in degrees)."
