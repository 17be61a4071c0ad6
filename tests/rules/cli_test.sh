#!/bin/sh
# cli_test.sh BIN SRCDIR [rules] - 'tabletrack rules' end to end: one answer line per
# query in order, errors inline and the stream goes on, scenario errors on
# stderr with line and column, exit codes.
set -u
BIN=$1
SUB=${3:-}  # "rules" when BIN is the tabletrack binary
SRC=$2
SCN=$SRC/samples/scenarios/into-the-breach-farm.json
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rules_cli_test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

printf '%s\n' \
  '{"q":"los","from":"m1","to":"f3"}' \
  'not json' \
  '' \
  '{"q":"fire","from":"m1","to":"f1"}' \
  '{"q":"los","from":"m1","to":"ghost"}' \
  '{"q":"blast","at":[17,23],"weapon":"mortar"}' > "$TMP/q.jsonl"
TABLETRACK_DATA=$SRC "$BIN" $SUB --scenario "$SCN" < "$TMP/q.jsonl" > "$TMP/out" 2> "$TMP/err" || fail "exit code $?"
[ "$(wc -l < "$TMP/out")" -eq 5 ] || fail "want 5 answer lines (blank line skipped), got: $(cat "$TMP/out")"
sed -n 1p "$TMP/out" | grep -q '"visible":false' || fail "line 1: $(sed -n 1p "$TMP/out")"
sed -n 1p "$TMP/out" | grep -q '"blocked_by":"house"' || fail "line 1 blocker: $(sed -n 1p "$TMP/out")"
sed -n 2p "$TMP/out" | grep -q '^{"error":"query: line 1, column' || fail "line 2: $(sed -n 2p "$TMP/out")"
sed -n 3p "$TMP/out" | grep -q '"bracket":"medium"' || fail "line 3: $(sed -n 3p "$TMP/out")"
sed -n 4p "$TMP/out" | grep -q '^{"error":"unknown figure \\"ghost\\"' || fail "line 4: $(sed -n 4p "$TMP/out")"
sed -n 5p "$TMP/out" | grep -q '"hit":\["f1"\]' || fail "line 5: $(sed -n 5p "$TMP/out")"

# malformed scenario: line and column, exit 1, nothing on stdout
printf '{"ruleset": "into-the-breach",\n "table": {"width_in": 72, "depth_in": 48,\n "figures": []}\n' > "$TMP/bad.json"
echo '{"q":"los","from":"a","to":"b"}' | "$BIN" $SUB --scenario "$TMP/bad.json" > "$TMP/out" 2> "$TMP/err"
[ $? -eq 1 ] || fail "malformed scenario should exit 1"
grep -q 'bad.json: line [0-9]*, column [0-9]*' "$TMP/err" || fail "no line/column: $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] || fail "stdout not empty on a bad scenario"

# a ruleset given as a profile file next to the scenario
cp "$SRC/rules/profiles/thin-red-line.json" "$TMP/house-rules.json"
printf '{"ruleset": "house-rules.json", "table": {"width_in": 48, "depth_in": 48},\n "figures": [{"id": "a", "x": 1, "y": 1}, {"id": "b", "x": 5, "y": 1}]}\n' > "$TMP/s.json"
echo '{"q":"los","from":"a","to":"b"}' | "$BIN" $SUB --scenario "$TMP/s.json" > "$TMP/out" 2> "$TMP/err" || fail "profile path: $(cat "$TMP/err")"
grep -q '"visible":true' "$TMP/out" || fail "profile path answer: $(cat "$TMP/out")"

# --ruleset NAME --house: the values the rulebook does not settle, one a line
TABLETRACK_DATA=$SRC "$BIN" $SUB --ruleset thin-red-line --house > "$TMP/out" 2> "$TMP/err" || fail "--house: $(cat "$TMP/err")"
head -1 "$TMP/out" | grep -q '^thin-red-line: [1-9][0-9]* house values' || fail "--house header: $(head -1 "$TMP/out")"
grep -q '^  measure: ' "$TMP/out" || fail "--house should list measure: $(cat "$TMP/out")"
grep -q '^  movement.general: ' "$TMP/out" || fail "--house should list movement.general: $(cat "$TMP/out")"
grep -q 'weapons.musket' "$TMP/out" && fail "--house lists a cited value: $(cat "$TMP/out")"
"$BIN" $SUB --house > /dev/null 2>&1; [ $? -eq 2 ] || fail "--house without --ruleset should exit 2"
TABLETRACK_DATA=$SRC "$BIN" $SUB --ruleset no-such-game --house > /dev/null 2> "$TMP/err"; [ $? -eq 1 ] || fail "unknown ruleset should exit 1"

# an unknown key in a scenario: named, with line, column and the nearest key
printf '{"ruleset": "into-the-breach", "table": {"width_in": 72, "depth_in": 48},\n "figures": [{"id": "a", "x": 1, "y": 1, "sied": "red"}]}\n' > "$TMP/typo.json"
echo '{"q":"los","from":"a","to":"a"}' | TABLETRACK_DATA=$SRC "$BIN" $SUB --scenario "$TMP/typo.json" > "$TMP/out" 2> "$TMP/err"
[ $? -eq 1 ] || fail "an unknown key should exit 1"
grep -q 'unknown key "sied" in figure "a" (line 2, column 42): did you mean "side"?' "$TMP/err" || fail "unknown key message: $(cat "$TMP/err")"

# usage errors
"$BIN" $SUB > /dev/null 2>&1; [ $? -eq 2 ] || fail "no --scenario should exit 2"
"$BIN" $SUB --bogus > /dev/null 2>&1; [ $? -eq 2 ] || fail "unknown option should exit 2"
echo "ok"
