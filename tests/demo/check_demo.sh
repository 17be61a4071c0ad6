#!/usr/bin/env bash
# The README's demo, end to end: run samples/demo.sh with this build's
# tabletrack and check what it promises to leave in the output folder.
set -eu
tt="$1"; src="$2"; out="$3"
rm -rf "$out"
bash "$src/samples/demo.sh" "$tt" "$out" > "$out.log" 2>&1 || { cat "$out.log"; echo "FAIL: demo exited non-zero"; exit 1; }
fail() { cat "$out.log"; echo "FAIL: $*"; exit 1; }
[ "$(grep -o '"id":' "$out/figures.json" | wc -l)" -eq 60 ] || fail "locate did not find the 60 sample figures"
grep -q '"frames":120,' "$out/stats.json" || fail "track did not process the 120 sample frames"
[ "$(grep -c '"event":"moved"' "$out/events.jsonl")" -eq 3 ] || fail "expected the 3 grenadier moves"
[ "$(grep -c '"event":"removed"' "$out/events.jsonl")" -eq 1 ] || fail "expected the casualty to be removed"
grep '"event":"removed"' "$out/events.jsonl" | grep -q '"id":30,' || fail "the casualty is fusilier tag 30"
[ "$(ls "$out/overlay" | wc -l)" -eq 120 ] || fail "expected one projector frame per camera frame"
[ -s "$out/replay.html" ] || fail "no replay.html"
grep -q 'grape' "$out/game.jsonl" || fail "the grape query is not in the recording"
grep -q 'grenade' "$out/game.jsonl" || fail "the grenade query is not in the recording"
# Query rows carry the frame they were shown on, with that frame's time, and
# numbers as printed (no 7.6299999999999999).
db="$out/game.sqlite"
q=$(sqlite3 "$db" "SELECT group_concat(frame || ':' || t_ms, ' ') FROM (SELECT frame, t_ms FROM query ORDER BY frame)")
want=$(for f in 4 34 58; do grep -o "^{\"frame\":$f,\"t_ms\":[0-9]*" "$out/events.jsonl" | sed 's/.*"frame":\([0-9]*\),"t_ms":\([0-9]*\)/\1:\2/'; done | paste -sd' ')
[ "$(sqlite3 "$db" "SELECT group_concat(frame, ',') FROM (SELECT frame FROM query ORDER BY frame)")" = "4,34,58" ] \
  || fail "query rows on frames '$q', expected 4, 34 and 58"
[ "$q" = "$want" ] || fail "query rows '$q' do not carry their frames' times '$want'"
if sqlite3 "$db" "SELECT query_json || answer_json FROM query" | grep -qE '[0-9]\.[0-9]{6,}'; then
  fail "float noise in the stored JSON: $(sqlite3 "$db" "SELECT answer_json FROM query")"
fi
echo "demo: 1 passed, 0 failed"
