#!/usr/bin/env bash
# The README's demo: tabletrack's whole pipeline on the bundled samples.
# Usage: samples/demo.sh [path/to/tabletrack] [OUT_DIR]
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
tt="${1:-$here/../build/tabletrack}"
out="${2:-$here/../out/demo}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
b="$here/breach"

echo "== 1. One camera frame: where is every figure? (tabletrack locate)"
"$tt" locate --rig "$here/table/rig.json" "$here/table/frame.png" > "$out/figures.json"
n=$(grep -o '"id":' "$out/figures.json" | wc -l)
echo "   samples/table/frame.png (3840x2160): $n figures located -> out/demo/figures.json"
echo "   first: $(grep -o '{"family":[^}]*}' "$out/figures.json" | head -1)"
echo

echo "== 2. A game: track the camera video, draw the answers, record everything (tabletrack track)"
echo "   samples/breach: Into the Breach!, grenadiers storm a breach; the gun fires grape, a grenade is thrown"
rm -rf "$out/overlay" "$out/game.sqlite" "$out/game.sqlite-wal" "$out/game.sqlite-shm"
mkdir -p "$out/overlay"
"$tt" track --rig "$b/rig.json" --source "$b/game.mp4" --scenario "$b/scenario.json" \
    --projector "$b/projector.json" --queries "$b/queries.jsonl" \
    --overlay-dir "$out/overlay" --events "$out/events.jsonl" --record "$out/game.sqlite" --stats \
    > "$out/stats.json"
echo "   $(cat "$out/stats.json")"
echo "   events: $(grep -c '"event":"moved"' "$out/events.jsonl") moved, $(grep -c '"event":"appeared"' "$out/events.jsonl") appeared, $(grep -c '"event":"removed"' "$out/events.jsonl") removed -> out/demo/events.jsonl"
grep '"event":"moved"' "$out/events.jsonl" | head -3 | sed 's/^/     /'
echo "   projector frames -> out/demo/overlay/overlay_NNNNN.png (grape at frame 40: overlay_00040.png)"
echo

echo "== 3. The replay (tabletrack replay)"
"$tt" replay "$out/game.sqlite" --html "$out/replay.html"
"$tt" replay "$out/game.sqlite" --json > "$out/game.jsonl"
echo "   out/demo/replay.html: open it in any browser (no network needed); drag the timeline"
echo "   out/demo/game.jsonl:  the game as JSON Lines; out/demo/game.sqlite: query it with sqlite3"
echo
echo "Done. Look at out/demo/replay.html first, then out/demo/overlay/overlay_00040.png."
