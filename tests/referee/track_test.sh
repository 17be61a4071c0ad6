#!/bin/sh
# track_test.sh BIN SRCDIR - 'tabletrack track --phases' end to end on the
# sample game's rendered frames (samples/breach, Into the Breach!): the
# phase lines, a dice move checked with the roll it needs, a move out of
# turn, a casualty counted and the morale check it calls (L8-16); and the
# bad --phases files refused with what to fix.
set -u
BIN=$1
SRC=$2
B=$SRC/samples/breach
TMP=$(mktemp -d "${TMPDIR:-/tmp}/referee_track_test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
track() { TABLETRACK_DATA=$SRC "$BIN" track --rig "$B/rig.json" --source "$B/game.mp4" --scenario "$B/scenario.json" "$@"; }

# British actions; at 27 the French act (gren2's advance at 28 is out of
# turn); at 50 the British again (gren3 creeps up at 58); fus1 is taken off
# at 105; at 110 the morale phase ends the actions.
printf '%s\n' '{"frame": 0, "turn": 1, "phase": "actions", "side": "british"}' '{"frame": 27, "next": true}' \
  '' '{"frame": 50, "next": true}' '{"frame": 110, "phase": "morale"}' > "$TMP/phases.jsonl"
track --phases "$TMP/phases.jsonl" --events "$TMP/ev.jsonl" > "$TMP/out" 2> "$TMP/err" || fail "exit code $?: $(cat "$TMP/err")"
E=$TMP/ev.jsonl
grep -qx '{"event":"phase","turn":1,"phase":"actions","side":"british"}' "$E" || fail "no first phase line: $(grep phase "$E")"
grep -qx '{"event":"phase","turn":1,"phase":"actions","side":"french"}' "$E" || fail "no french activation"
grep -qx '{"event":"phase","turn":1,"phase":"morale","side":null}' "$E" || fail "no morale phase"
[ "$(grep -c '"event":"phase"' "$E")" -eq 4 ] || fail "want 4 phase lines: $(grep '"event":"phase"' "$E")"
# gren1 moved 5.22" at frame 26: 1d6+3 (L74) needs a 3 or more
grep '"event":"move_check","id":"gren1"' "$E" | grep -q '"ok":null,"allowed_range_in":\[4,9\],"needs_roll":3' ||
  grep '"event":"move_check","id":"gren1"' "$E" | grep -q '"ok":null,"allowed_range_in":\[4.0,9.0\],"needs_roll":3' ||
  fail "gren1: $(grep gren1 "$E" | grep event)"
grep '"event":"move_check","id":"gren1"' "$E" | grep -q '"from":\[8.0*,5.0*\]' || fail "gren1 from: $(grep move_check "$E")"
grep -q '"event":"out_of_turn","id":"gren2","rule":"it is french' "$E" || fail "gren2 not out of turn: $(grep gren2 "$E")"
grep -q '"event":"move_check","id":"gren2"' "$E" && fail "gren2 checked as a move in the French activation"
grep -q '"event":"move_check","id":"gren3".*"needs_roll":2' "$E" || fail "gren3: $(grep gren3 "$E")"
grep -qx '{"event":"casualties","unit":"la-sarre","lost":1,"of":4,"since_turn_start":1}' "$E" ||
  fail "casualties: $(grep casualties "$E")"
grep '"event":"morale","unit":"la-sarre"' "$E" | grep -q '"test":{"dice":"2d6","needs":6,' ||
  fail "morale: $(grep morale "$E")"
grep '"event":"morale","unit":"la-sarre"' "$E" | grep -q '"rule":"into-the-breach.txt L8-16' || fail "morale rule"
# the referee's lines follow the frame lines they come from
awk '/"event":"casualties"/{exit !(prev ~ /"frame":110,/)} {prev=$0}' "$E" || fail "casualties not after frame 110"

# bad input: a clear error and a failing exit, before any frame is read
bad() { # FILE-CONTENT EXPECTED-TEXT
  printf '%s\n' "$1" > "$TMP/bad.jsonl"
  track --phases "$TMP/bad.jsonl" --events "$TMP/bad_ev" > /dev/null 2> "$TMP/bad_err"
  code=$?
  [ $code -ne 0 ] || fail "accepted: $1"
  grep -qF "$2" "$TMP/bad_err" || fail "for $1 want \"$2\", got: $(cat "$TMP/bad_err")"
}
bad '{"frame": 5, "phase": "actions", "side": "british"}
{"frame": 3, "next": true}' 'line 2: frame 3 comes after frame 5 on an earlier line: list the lines in frame order'
bad '{"frame": 0, "phase": "melee", "side": "british"}' '"melee" is not a phase of into-the-breach: its phases are actions, morale'
bad '{"frame": 0, "phase": "actions", "side": "prussian"}' '"prussian" is not a side of this scenario: its sides are british, french'
bad '{"frame": 0, "next": true}' 'line 1: no phase is set yet'
bad '{"frame": 0, "phase": "actions", "sides": "british"}' 'unknown key "sides"'
printf '%s\n' '{"frame": 0, "phase": "actions", "side": "british"}' > "$TMP/ok.jsonl"
TABLETRACK_DATA=$SRC "$BIN" track --rig "$B/rig.json" --source "$B/game.mp4" --phases "$TMP/ok.jsonl" \
  > /dev/null 2> "$TMP/err2" && fail "--phases without --scenario accepted"
grep -q -- '--phases needs --scenario' "$TMP/err2" || fail "no --scenario: $(cat "$TMP/err2")"
echo "ok"
