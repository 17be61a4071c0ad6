#!/bin/sh
# track_books_test.sh BIN SRCDIR BOOK - 'tabletrack track --phases' end to
# end for The Thin Red Line (trl), Fixed Bay'net (fb) and All the King's Men
# (atkm), as track_test.sh does for Into the Breach!: the held-out game's
# rendered frames (tests/referee/heldout: its README says what moves when)
# with the sample scenario rewritten for the book, and a phases file fitting
# the book's turn structure (rules/profiles/*.json "turns"). Asserted from
# --events: the phase lines; a move under, at and over the book's allowance
# with its rule; a move through the rubble; a move out of turn; a move put
# back clearing its check; the casualties counted; the loss call the book
# makes, with its numbers.
#
# The frames (heldout/script.json): turn 1 gren1 6" east (frames 4-12), gren4
# 10" west (4-14), gren3 8.75" with 2.3" in the rubble (6-16), fus2 2" (8-12);
# fus4 3" (33-40); gren1 2" again and crew2 2" (58-63), crew2 put back
# (70-74); fus1 and fus3 taken off (78-82). Turn 2: fus4 3.35" (113-120),
# fus2 taken off (118-121).
set -u
BIN=$1
SRC=$2
BOOK=$3
B=$SRC/samples/breach
H=$SRC/tests/referee/heldout
TMP=$(mktemp -d "${TMPDIR:-/tmp}/referee_books_test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL ($BOOK): $*"; exit 1; }

# scenario: the sample scenario with the book's ruleset and
# the changes given as Python statements on `sc` (figures by id in `f`).
scenario() { # RULESET RENAMES-JSON PYTHON
  python3 - "$B/scenario.json" "$TMP/scenario.json" "$1" "$2" "$3" <<'EOF' || fail "scenario"
import json, sys
sc = json.load(open(sys.argv[1]))
sc["ruleset"] = sys.argv[3]
rename = json.loads(sys.argv[4])
for fig in sc["figures"]:
    fig["weapon"] = rename.get(fig["weapon"], fig["weapon"])
f = {fig["id"]: fig for fig in sc["figures"]}
exec(sys.argv[5])
json.dump(sc, open(sys.argv[2], "w"))
EOF
}
run() {
  TABLETRACK_DATA=$SRC "$BIN" track --rig "$H/rig.json" --source "$H/game.mp4" --scenario "$TMP/scenario.json" \
    --grace 15 --phases "$TMP/phases.jsonl" --events "$TMP/ev.jsonl" > "$TMP/out" 2> "$TMP/err" ||
    fail "exit code $?: $(cat "$TMP/err")"
}
E=$TMP/ev.jsonl
has() { grep -qxF "$1" "$E" || fail "$2: $(grep "$3" "$E")"; }
# ev ID EVENT: figure ID's lines of that event
ev() { grep "\"event\":\"$2\",\"id\":\"$1\"" "$E"; }
want() { # ID EVENT PATTERN WHAT
  ev "$1" "$2" | grep -q "$3" || fail "$4: $(grep "\"id\":\"$1\"" "$E" | grep '"event"')"
}
phases() { [ "$(grep -c '"event":"phase"' "$E")" -eq "$1" ] || fail "want $1 phase lines: $(grep '"event":"phase"' "$E")"; }

case $BOOK in
trl)
  # The Thin Red Line: Movement, Shooting, Assault, each side in turn, the
  # side with the initiative first (L216); foot in line 4", light infantry
  # 6" (L220); foot in line is not slowed by difficult going (L230); a unit
  # that loses stands to shooting takes a motivation roll (L246, its table
  # L266), disorientated at 50% lost since the turn began (L248).
  # gren1 light: its 6" is at its allowance.
  scenario thin-red-line '{"artillery": "light-artillery", "mortar": "howitzer", "grenade": "musket"}' \
    'f["gren1"]["type"] = "light"'
  # turn 1: British movement (initiative), French movement, British shooting
  # (the moves at 58 are out of turn; fus1, fus3 shot), French shooting,
  # assault; turn 2: the French won the initiative.
  printf '%s\n' '{"frame": 0, "turn": 1, "phase": "movement", "side": "british"}' '{"frame": 30, "next": true}' \
    '{"frame": 55, "next": true}' '{"frame": 105, "next": true}' '{"frame": 108, "next": true}' \
    '{"frame": 110, "turn": 2, "phase": "movement", "side": "french"}' '{"frame": 145, "next": true}' > "$TMP/phases.jsonl"
  run
  has '{"event":"phase","turn":1,"phase":"movement","side":"british"}' "British movement" phase
  has '{"event":"phase","turn":1,"phase":"movement","side":"french"}' "French movement (L216)" phase
  has '{"event":"phase","turn":1,"phase":"shooting","side":"british"}' "shooting after movement (L216)" phase
  has '{"event":"phase","turn":1,"phase":"shooting","side":"french"}' "French shooting" phase
  has '{"event":"phase","turn":1,"phase":"assault","side":"british"}' "assault, the initiative's side first" phase
  has '{"event":"phase","turn":2,"phase":"movement","side":"french"}' "turn 2" phase
  has '{"event":"phase","turn":2,"phase":"movement","side":"british"}' "turn 2, the British after the French" phase
  phases 7
  # at: gren1, light, 6" of 6" (L220): not flagged over unless too close to call
  want gren1 move_check '"allowed_in":6[,.]' "gren1 light infantry 6\" (L220)"
  ev gren1 move_check | head -1 | grep -q '"ok":false,"too_close_to_call":false' && fail "gren1's 6\" of 6\" flagged over"
  # over: gren4 10" of foot's 4" (L220)
  want gren4 move_check '"allowed_in":4[,.].*"ok":false.*"rule":"thin-red-line.txt L220' "gren4's 10\" of 4\" over"
  # through terrain: gren3 through the rubble (difficult, not slowing foot in line, L230): over 4"
  want gren3 move_check '"allowed_in":4[,.].*"ok":false' "gren3's 8.75\" over"
  want gren3 move_check '"crossed":\["rubble"\]' "gren3 crossed the rubble"
  # under: fus4 3" of 4" in the French movement
  want fus4 move_check '"allowed_in":4[,.].*"ok":true' "fus4's 3\" of 4\" fair"
  # out of turn: fus2 in the British movement; gren1 and crew2 in the shooting phase
  want fus2 out_of_turn '"rule":"it is british.s movement' "fus2 moves in the British movement"
  want gren1 out_of_turn '"rule":"no figure moves in the shooting phase' "gren1 moves in the shooting phase"
  want crew2 out_of_turn '"rule":"no figure moves in the shooting phase' "crew2 moves in the shooting phase"
  # put back: crew2 back where it stood, its check cleared
  want crew2 move_check '"put_back":true' "crew2 put back"
  over=$(grep '"ok":false' "$E" | grep -v '"too_close_to_call":true' | grep -o '"id":"[a-z0-9]*"' | sort -u | tr '\n' ' ')
  [ "$over" = '"id":"gren3" "id":"gren4" ' ] || fail "the over-moves flagged are $over (want gren3, gren4)"
  # casualties: fus1, fus3 shot in the British shooting (2 of 4); fus2 in turn 2 (1 of 4)
  has '{"event":"casualties","unit":"la-sarre","lost":2,"of":4,"since_turn_start":2}' "turn 1's casualties" casualties
  has '{"event":"casualties","unit":"la-sarre","lost":1,"of":4,"since_turn_start":1}' "turn 2's casualties" casualties
  # the motivation roll when the shooting phase ends (L246): 1d6 by quality (L266: unsteady 5, steady 4,
  # fearless 3), no below-half modifier at 2 of 4 left; 2 of 4 lost this turn: disorientated (L248)
  m=$(grep '"event":"morale","unit":"la-sarre"' "$E")
  [ "$(echo "$m" | grep -c .)" -eq 1 ] || fail "want one motivation roll (shooting losses only, L246): $m"
  echo "$m" | grep -q '"call":"motivation","test":{"dice":"1d6","needs":null,"needs_by_rating":{"unsteady":5,"steady":4,"fearless":3},"modifiers":\[\]}' ||
    fail "motivation numbers: $m"
  echo "$m" | grep -q '"result":"disorientated","rule":"thin-red-line.txt L246' || fail "motivation result and rule: $m"
  # called as the shooting phase ends: the line after it is the assault's
  awk '/"event":"morale"/{getline n; exit !(n ~ /"turn":1,"phase":"assault"/)}' "$E" || fail "motivation not when the shooting ended"
  ;;
fb)
  # Fixed Bay'net: Actions (units activated in turn, the sides alternating,
  # L24-26), then Glory tests (L28-30); foot SP 5", elite 6" (L69-73,
  # L609-612); bumpy ground (rubble, L689) at 2/3 speed (L684); a unit at
  # 50% or less takes a Glory test (L161-168), rolling its GL (L183-188).
  # gren1 elite: its 6" is at its allowance.
  scenario fixed-bayonet '{"artillery": "gun", "grenade": "musket"}' 'f["gren1"]["quality"] = "elite"'
  printf '%s\n' '{"frame": 0, "turn": 1, "phase": "actions", "side": "british"}' '{"frame": 30, "next": true}' \
    '{"frame": 55, "next": true}' '{"frame": 105, "phase": "glory"}' \
    '{"frame": 110, "turn": 2, "phase": "actions", "side": "french"}' '{"frame": 145, "phase": "glory"}' > "$TMP/phases.jsonl"
  run
  has '{"event":"phase","turn":1,"phase":"actions","side":"british"}' "British actions" phase
  has '{"event":"phase","turn":1,"phase":"actions","side":"french"}' "the sides alternate (L24-26)" phase
  has '{"event":"phase","turn":1,"phase":"glory","side":null}' "Glory tests after the actions (L28-30)" phase
  has '{"event":"phase","turn":2,"phase":"actions","side":"french"}' "turn 2" phase
  has '{"event":"phase","turn":2,"phase":"glory","side":null}' "turn 2's Glory tests" phase
  phases 6
  want gren1 move_check '"allowed_in":6[,.]' "gren1 elite 6\" (L612)"
  ev gren1 move_check | head -1 | grep -q '"ok":false,"too_close_to_call":false' && fail "gren1's 6\" of 6\" flagged over"
  want gren4 move_check '"allowed_in":5[,.].*"ok":false.*"rule":"fixed-bayonet.txt L69' "gren4's 10\" of 5\" over"
  want gren3 move_check '"ok":false' "gren3's 8.75\" through the rubble over"
  want gren3 move_check '"crossed":\["rubble"\]' "gren3 crossed the rubble"
  want fus4 move_check '"allowed_in":5[,.].*"ok":true' "fus4's 3\" of 5\" fair"
  want fus2 out_of_turn '"rule":"it is british.s actions' "fus2 moves in a British activation"
  want crew2 move_check '"put_back":true' "crew2 put back"
  over=$(grep '"ok":false' "$E" | grep -v '"too_close_to_call":true' | grep -o '"id":"[a-z0-9]*"' | sort -u | tr '\n' ' ')
  [ "$over" = '"id":"gren3" "id":"gren4" ' ] || fail "the over-moves flagged are $over (want gren3, gren4)"
  has '{"event":"casualties","unit":"la-sarre","lost":2,"of":4,"since_turn_start":2}' "turn 1's casualties" casualties
  has '{"event":"casualties","unit":"la-sarre","lost":1,"of":4,"since_turn_start":1}' "turn 2's casualties" casualties
  # 2 of 4 lost: at 50%, a Glory test (L161-168) on 1d6 against its GL (L183-188)
  m=$(grep '"event":"morale","unit":"la-sarre"' "$E" | head -1)
  echo "$m" | grep -q '"call":"glory","test":{"dice":"1d6","needs":null,"needs_note":"the unit.s GL' || fail "glory test: $m"
  echo "$m" | grep -q '"rule":"fixed-bayonet.txt L161-168' || fail "glory rule: $m"
  awk '/"event":"morale"/{getline n; exit !(n ~ /"turn":1,"phase":"glory"/)}' "$E" ||
    fail "the Glory test not at turn 1's Glory phase"
  ;;
atkm)
  # All the King's Men: units activated by cards, the sides' cards mixed
  # (L278, L305); foot in line 6", skirmishers 12" in any direction
  # (L416-422, L410); terrain, and moving sideways or backward, halve a move
# (L430, L442); a unit that suffers
  # casualties downgrades its resolve (L533); a unit reduced to its chart's
  # number collapses (L691: skirmishers 2, L693-701).
  # la-sarre as skirmishers, the mortar crew among them: 5 figures, so the
  # two taken off in turn 1 leave 3 (a downgrade) and the one in turn 2
  # leaves 2 (the collapse).
  scenario all-the-kings-men '{"musket": "infantry", "grenade": "infantry", "artillery": "foot-artillery"}' '
for i in ("fus1", "fus2", "fus3", "fus4", "mortar1"):
    f[i].update(type="skirmisher", weapon="skirmisher", unit="la-sarre")
f["mortar1"].pop("base")'
  # turn 1: British, French, British cards; turn 2 a French card first, then a British
  printf '%s\n' '{"frame": 0, "turn": 1, "phase": "activations", "side": "british"}' '{"frame": 30, "next": true}' \
    '{"frame": 55, "next": true}' '{"frame": 105, "next": true}' \
    '{"frame": 110, "turn": 2, "phase": "activations", "side": "french"}' '{"frame": 145, "next": true}' > "$TMP/phases.jsonl"
  run
  has '{"event":"phase","turn":1,"phase":"activations","side":"british"}' "a British card" phase
  has '{"event":"phase","turn":1,"phase":"activations","side":"french"}' "a French card" phase
  has '{"event":"phase","turn":2,"phase":"activations","side":"british"}' "turn 2's British card" phase
  phases 6
  want gren1 move_check '"allowed_in":6[,.]' "gren1 foot 6\" (L416-422)"
  ev gren1 move_check | head -1 | grep -q '"ok":false,"too_close_to_call":false' && fail "gren1's 6\" of 6\" flagged over"
  # gren4 faces east (-5 degrees) and moves 10" west: backward, half its 6" (L442): over
  want gren4 move_check '"allowed_in":3[,.].*"ok":false.*"rule":"all-the-kings-men.md L416-422, L442' "gren4's 10\" backward of 3\" over"
  # gren3's move ends in the rubble, which halves it (L430): 3", over
  want gren3 move_check '"allowed_in":3[,.].*"ok":false.*"rule":"all-the-kings-men.md L416-422, L430' "gren3's 8.75\" through the rubble of 3\" over"
  want gren3 move_check '"crossed":\["rubble"\]' "gren3 crossed the rubble"
  want fus4 move_check '"allowed_in":12[,.].*"ok":true' "fus4 skirmisher's 3\" of 12\" fair"
  # gren1 moves again in a later British activation: a unit may be activated again (L305), 2" of 6"
  ev gren1 move_check | sed -n 2p | grep -q '"ok":true' || fail "gren1's second activation: $(ev gren1 move_check)"
  want fus2 out_of_turn '"rule":"it is british.s activations' "fus2 moves on a British card"
  want crew2 move_check '"put_back":true' "crew2 put back"
  over=$(grep '"ok":false' "$E" | grep -v '"too_close_to_call":true' | grep -o '"id":"[a-z0-9]*"' | sort -u | tr '\n' ' ')
  [ "$over" = '"id":"gren3" "id":"gren4" ' ] || fail "the over-moves flagged are $over (want gren3, gren4)"
  has '{"event":"casualties","unit":"la-sarre","lost":2,"of":5,"since_turn_start":2}' "turn 1's casualties" casualties
  has '{"event":"casualties","unit":"la-sarre","lost":1,"of":5,"since_turn_start":1}' "turn 2's casualties" casualties
  r=$(grep '"event":"morale","unit":"la-sarre","call":"resolve"' "$E")
  [ "$(echo "$r" | grep -c .)" -eq 2 ] || fail "want a resolve downgrade for each loss (L533): $r"
  echo "$r" | grep -qv '"rule":"all-the-kings-men.md L358, L533' && fail "resolve rule: $r"
  c=$(grep '"event":"morale","unit":"la-sarre","call":"collapse"' "$E")
  [ "$(echo "$c" | grep -c .)" -eq 1 ] || fail "want one collapse, at 2 left (L691, L693-701): $c"
  echo "$c" | grep -q '"rule":"all-the-kings-men.md L691' || fail "collapse rule: $c"
  # the collapse after turn 2's loss (2 left), not turn 1's (3 left)
  awk '/"call":"collapse"/{exit !seen} /"turn":2,"phase":"activations","side":"french"/{seen=1}' "$E" ||
    fail "collapsed before 2 were left"
  ;;
*) fail "unknown book (trl, fb, atkm)" ;;
esac
echo "ok"
