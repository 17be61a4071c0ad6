#!/usr/bin/env bash
# check_conventions.sh BIN BUILD_DIR - the CLI explains itself: --version,
# 'help CMD' and 'CMD --help' (every option with a line, an example, the exit
# codes), 'help' of an unknown command (exit 2 with the list), "did you
# mean", --opt=value, conflicting options named, an --out folder that does
# not exist, the man page and bash completion, and 'cmake --install'.
set -u
tt=$1; build=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() { "$@" > "$tmp/out" 2> "$tmp/err"; echo $? > "$tmp/rc"; }
rc() { cat "$tmp/rc"; }

run "$tt" --version
[ "$(rc)" = 0 ] && grep -Eq '^tabletrack [0-9]+\.[0-9]+ \(.+\)$' "$tmp/out" || fail "--version: $(cat "$tmp/out" "$tmp/err")"

# Every command in the list has full help, the same from 'help CMD' and 'CMD --help'.
run "$tt" help
cmds=$(sed -n '/^commands:/,/^$/p' "$tmp/out" | awk 'NF > 1 {print $1}')
[ "$(echo "$cmds" | wc -w)" -ge 9 ] || fail "help lists the commands: $cmds"
for c in $cmds; do
  case $c in calib) subs="camera projector";; print) subs="board tags";; *) subs="-";; esac
  for s in $subs; do
    words=$c; [ "$s" = - ] || words="$c $s"
    run "$tt" help $words
    [ "$(rc)" = 0 ] || { fail "help $words: exit $(rc)"; continue; }
    cp "$tmp/out" "$tmp/help"
    for want in "^tabletrack $words - " "^usage: tabletrack $words" "^options" "^example:" "^exit status:" \
                "^  .*tabletrack $words" "2 usage error"; do
      grep -q -- "$want" "$tmp/help" || fail "help $words: no '$want'"
    done
    # every option's explanation ends a sentence, not on "the broker's"
    awk '/^options/ {on = 1; next} /^(example|exit status)/ {on = 0}
         on && /^  -/ {if (d != "") print d; d = $0; next}
         on && /^   / {d = d " " $0; next}
         END {if (d != "") print d}' "$tmp/help" | sed 's/ *$//' > "$tmp/opts"
    while IFS= read -r line; do
      last=${line##* }
      case $last in *"'s"|the|a|an|of|to|and|or|by|with|that|for|in|on|at|from|as)
        fail "help $words: an option's explanation stops mid-sentence: $line";; esac
    done < "$tmp/opts"
    # every --option of the usage line is explained on a line of its own
    for o in $(grep -o -- '--[a-z][a-z0-9-]*' <(sed -n '/^usage:/,/^$/p' "$tmp/help") | sort -u); do
      grep -Eq -- "^  $o([ =[]|\$)" "$tmp/help" || fail "help $words: option $o has no line"
    done
    # track and rules keep their own --help until their option parsing moves
    # to the tables (after the game/ refactor and the rules work land)
    [ "$c" = track ] || [ "$c" = rules ] && continue
    run "$tt" $words --help
    [ "$(rc)" = 0 ] && cmp -s "$tmp/out" "$tmp/help" || fail "$words --help differs from help $words"
  done
done

# Unknown command: exit 2, says so, lists the commands.
run "$tt" help frobnicate
[ "$(rc)" = 2 ] || fail "help frobnicate: exit $(rc), want 2"
grep -q "unknown command 'frobnicate'" "$tmp/err" && grep -q '^  replay' "$tmp/err" || fail "help frobnicate: $(cat "$tmp/err")"
run "$tt" trak
[ "$(rc)" = 2 ] && grep -q "did you mean 'track'" "$tmp/err" || fail "trak: $(cat "$tmp/err")"
# A longer word than a command ("calibrate" for "calib") is a typo of it too.
run "$tt" calibrate camera
[ "$(rc)" = 2 ] && grep -q "unknown command 'calibrate': did you mean 'calib'?" "$tmp/err" || fail "calibrate: $(cat "$tmp/err")"
run "$tt" help calibrate
[ "$(rc)" = 2 ] && grep -q "did you mean 'calib'?" "$tmp/err" || fail "help calibrate: $(cat "$tmp/err")"
run "$tt" frobnicate
[ "$(rc)" = 2 ] && ! grep -q "did you mean" "$tmp/err" || fail "frobnicate has no near command: $(cat "$tmp/err")"

# Did you mean; --opt=value; conflicts; a missing --out folder.
run "$tt" print tags --ids 0-3 --sise-in 2 --out "$tmp/a.pdf"
[ "$(rc)" = 2 ] && grep -q 'unknown option --sise-in: did you mean --size-in?' "$tmp/err" || fail "typo: $(cat "$tmp/err")"
run "$tt" replay g.sqlite --htlm x.html
[ "$(rc)" = 2 ] && grep -q 'did you mean --html?' "$tmp/err" || fail "typo --htlm: $(cat "$tmp/err")"
# A base without a unit is inches: one of 25 is surely millimetres, asked about
# (not printed 25 inches wide and then "the page is too small").
run "$tt" print tags --ids 4-9 --size-in 0.69 --base round:25 --out "$tmp/b.pdf"
[ "$(rc)" = 1 ] && grep -q "25 inches? did you mean round:25mm?" "$tmp/err" && ! grep -q "too small" "$tmp/err" \
  && [ ! -e "$tmp/b.pdf" ] || fail "round:25: $(cat "$tmp/err")"
run "$tt" print tags --ids 4-9 --size-in 0.4 --base rect:20x40 --out "$tmp/b.pdf"
[ "$(rc)" = 1 ] && grep -q "20x40 inches? did you mean rect:20x40mm?" "$tmp/err" || fail "rect:20x40: $(cat "$tmp/err")"
run "$tt" print tags --ids 4-9 --size-in 0.69 --base round:1in --out "$tmp/b.pdf"
[ "$(rc)" = 0 ] && [ -s "$tmp/b.pdf" ] || fail "round:1in: $(cat "$tmp/err")"
run "$tt" print tags --ids=0-3 --size-in=2 --per-page=4 --out="$tmp/a.pdf"
[ "$(rc)" = 0 ] && [ -s "$tmp/a.pdf" ] || fail "--opt=value: $(cat "$tmp/err")"
run "$tt" locate --rig="$tmp/none.json" x.png
[ "$(rc)" = 1 ] && grep -q 'none.json' "$tmp/err" || fail "locate --rig=: $(cat "$tmp/err")"
run "$tt" cameras --json=yes
[ "$(rc)" = 2 ] && grep -q -- '--json takes no value' "$tmp/err" || fail "flag with value: $(cat "$tmp/err")"
run "$tt" calib projector --rig r.json --patterns-out a --captures b
[ "$(rc)" = 2 ] && grep -q -- '--patterns-out and --captures cannot be used together' "$tmp/err" || fail "conflict: $(cat "$tmp/err")"
run "$tt" overlay --rig r --scenario s --query '{}' --on-camera f.png --window
[ "$(rc)" = 2 ] && grep -q -- '--on-camera and --window cannot be used together' "$tmp/err" || fail "conflict: $(cat "$tmp/err")"
run "$tt" print board --board b.json --out "$tmp/no/such/board.pdf"
[ "$(rc)" = 1 ] && grep -q "the folder '$tmp/no/such' does not exist" "$tmp/err" || fail "missing folder: $(cat "$tmp/err")"
[ ! -e "$tmp/no" ] || fail "missing folder: something was created"
run "$tt" print tags --ids 0-3 --size-in 1 --out "$tmp/a.pdf" --out "$tmp/b.pdf"
[ "$(rc)" = 2 ] && grep -q -- '--out is given twice' "$tmp/err" || fail "twice: $(cat "$tmp/err")"

# Progress: a line on a terminal (count, percent, time left), quiet otherwise.
# (TABLETRACK_PROGRESS_DELAY_MS=0: show it at once rather than after 2 s.)
"$build/tt-rec-sample" "$tmp/g.sqlite" > /dev/null 2>&1 || fail "tt-rec-sample"
export TABLETRACK_PROGRESS_DELAY_MS=0
if command -v script > /dev/null; then
  script -qec "'$tt' replay '$tmp/g.sqlite' --video '$tmp/v.avi' --width 64 --fps 4" /dev/null > "$tmp/tty.out" 2>&1
  grep -aEq $'\rreplay: video frames: [0-9]+/[0-9]+ \([0-9]+%\), about [0-9]+ s left' "$tmp/tty.out" \
    || fail "no progress line on a terminal: $(tr '\r' '\n' < "$tmp/tty.out" | head -5)"
  grep -aq 'wrote' "$tmp/tty.out" || fail "replay --video on a terminal: $(tail -c 300 "$tmp/tty.out")"
  script -qec "'$tt' calib projector --rig '$(dirname "$0")/../../samples/table/rig.json' --width 64 --height 64 --patterns-out '$tmp/pat'" /dev/null > "$tmp/tty.out" 2>&1
  grep -aEq $'\rcalib projector: writing patterns: [0-9]+/[0-9]+ \([0-9]+%\)' "$tmp/tty.out" \
    || fail "calib projector: no progress line: $(tr '\r' '\n' < "$tmp/tty.out" | head -5)"
  # locate: a table to read on a terminal (not one 5 kB JSON line), JSON with --json
  samples=$(dirname "$0")/../../samples/table
  script -qec "'$tt' locate --rig '$samples/rig.json' '$samples/frame.png'" /dev/null > "$tmp/tty.out" 2>&1
  tr -d '\r' < "$tmp/tty.out" > "$tmp/locate.txt"
  grep -q '^60 figures, in table inches (pose from 6 anchors' "$tmp/locate.txt" \
    && grep -Eq '^ +100 +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3} +-?[0-9]+\.[0-9]{3} +-?[0-9]+\.[0-9] +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{2}$' "$tmp/locate.txt" \
    && [ "$(grep -Ec '^ +1[0-5][0-9] ' "$tmp/locate.txt")" = 60 ] && ! grep -q '{"figures"' "$tmp/locate.txt" \
    || fail "locate on a terminal: $(head -c 600 "$tmp/locate.txt")"
  script -qec "'$tt' locate --json --rig '$samples/rig.json' '$samples/frame.png'" /dev/null > "$tmp/tty.out" 2>&1
  tr -d '\r' < "$tmp/tty.out" | python3 -c 'import json, sys; d = json.load(sys.stdin); assert len(d["figures"]) == 60' \
    || fail "locate --json on a terminal: $(head -c 300 "$tmp/tty.out")"
else
  fail "script (util-linux) is needed to test progress on a terminal"
fi
run "$tt" replay "$tmp/g.sqlite" --video "$tmp/v2.avi" --width 64 --fps 4
[ "$(rc)" = 0 ] && ! grep -q 'video frames' "$tmp/err" || fail "progress when not a terminal: $(cat "$tmp/err")"
unset TABLETRACK_PROGRESS_DELAY_MS

# The man page and the completion come from the same tables.
man=$build/tabletrack.1; comp=$build/tabletrack.bash-completion
[ -s "$man" ] && [ -s "$comp" ] || fail "no generated man page / completion in $build"
grep -q '^\.TH TABLETRACK 1' "$man" && grep -q '^\.SH EXIT STATUS' "$man" || fail "man page sections"
for o in size-in per-page patterns-out hold-ms; do sed 's/\\-/-/g' "$man" | grep -q -- "--$o" || fail "man page lacks --$o"; done
if command -v groff > /dev/null; then
  groff -man -Tutf8 -ww "$man" > "$tmp/man.txt" 2> "$tmp/groff.err" || fail "groff: $(cat "$tmp/groff.err")"
  [ -s "$tmp/groff.err" ] && fail "groff warnings: $(head -5 "$tmp/groff.err")"
  grep -q 'per-page' "$tmp/man.txt" || fail "rendered man page lacks --per-page"
fi
complete_words() { # the completions bash offers for the words given
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tabletrack; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$comp" "$@"
}
complete_words tabletrack pr | grep -qx print || fail "completion: command"
complete_words tabletrack print t | grep -qx tags || fail "completion: sub-command"
complete_words tabletrack print tags --si | grep -qx -- --size-in || fail "completion: option"
complete_words tabletrack replay x --h | grep -qx -- --html || fail "completion: replay option"
[ -z "$(complete_words tabletrack print tags --si | grep -x -- --board)" ] || fail "completion: board's option for tags"

# cmake --install puts the program, the man page and the completion in place.
if cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" 2>&1; then
  for f in bin/tabletrack share/man/man1/tabletrack.1 share/bash-completion/completions/tabletrack; do
    [ -s "$tmp/prefix/$f" ] || fail "cmake --install: no $f"
  done
else
  fail "cmake --install: $(tail -5 "$tmp/install.log")"
fi

[ "$fails" = 0 ] || { echo "$fails failed"; exit 1; }
echo "cli conventions: all passed"
