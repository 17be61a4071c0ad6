#!/usr/bin/env bash
# Speed against an older commit (issue 32's "within 3% of today, same run"):
# builds COMMIT in a throw-away git worktree under BUILD/against/ (Release,
# its own build folder), builds this tree's benches in BUILD, then runs each
# bench from both builds interleaved, a pair at a time (A B, then B A, ...),
# and prints each bench's figures for both, the median of the pairs' ratios
# and their spread (samples/bench_against.py reads what the benches print).
#
# Usage: samples/bench_against.sh COMMIT [PAIRS]     (PAIRS: default 5; 0: the counts only)
#   env BUILD (default build), BENCH (default "track overlay http hall"),
#   TT_AGAINST_KEEP=1 keeps the worktree of COMMIT (its build folder is kept
#   anyway, so a second run only rebuilds what changed), BASE_BUILD=DIR uses a
#   Release build of COMMIT you already have (its source tree must be at COMMIT).
# The commands are samples/bench.sh's, with the flags both builds accept
# (bench_track --baselines 0: the raw-detector passes are not compared);
# the Python benches run from each build's own tree; both builds read the
# same rendered frames (BUILD/bench-frames), so the input is the same.
# Every bench's output is kept in BUILD/against/out-DATE/.
# Then, where valgrind is installed (TT_AGAINST_COUNT=0 skips it), the
# instructions a frame of track, overlay and http's tracker take, and one
# of the hall's tables (its replay published into a broker, less start-up),
# counted once a side under callgrind: the same count on an idle or a busy
# machine, so a 3 % call stands where the times' spread is wider (except
# the table's: its replay keeps the game's pace, so a starved machine sends
# fewer, larger chunks; count it on a quiet one.  The hall server's own work
# depends on when messages arrive: it has times only).
set -eu
[ $# -ge 1 ] || { echo "usage: samples/bench_against.sh COMMIT [PAIRS]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$root" rev-parse --verify --quiet "$1^{commit}") ||
  { echo "bench_against: '$1' is not a commit of $root (give a hash or branch name from git log)" >&2; exit 2; }
pairs=${2:-5}
case $pairs in '' | *[!0-9]*) echo "bench_against: PAIRS must be a whole number >= 2, not '$pairs'" >&2; exit 2 ;; esac
[ "$pairs" = 0 ] || [ "$pairs" -ge 2 ] ||
  { echo "bench_against: PAIRS must be 0 (the counts only) or >= 2 (a spread needs two pairs), not $pairs" >&2; exit 2; }
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
names=${BENCH:-track overlay http hall}
jobs=${JOBS:-2}
short=${commit:0:12}
top=$build/against
src=$top/src-$short
bbuild=$top/build-$short
if [ -n "${BASE_BUILD:-}" ]; then # a build of COMMIT already made: its tree is the one it was configured from
  bbuild=$(cd "$BASE_BUILD" && pwd)
  src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$bbuild/CMakeCache.txt" 2>/dev/null)
  if [ -z "$src" ] || [ "$(git -C "$src" rev-parse HEAD 2>/dev/null)" != "$commit" ]; then
    echo "bench_against: BASE_BUILD=$BASE_BUILD is not a build of a tree at $short" >&2
    exit 2
  fi
fi
out=$top/out-$(date +%Y%m%d-%H%M%S)
cache=${TT_BENCH_CACHE:-$build/bench-frames}
mkdir -p "$top" "$out" "$cache"

targets=""
for n in $names; do
  case $n in
    track) targets="$targets bench_track" ;;
    overlay) targets="$targets bench_overlay" ;;
    http) targets="$targets tabletrack tt-render" ;;
    hall) targets="$targets tabletrack tt-rec-sample" ;;
    *) echo "bench_against: unknown bench '$n' (track overlay http hall)" >&2; exit 2 ;;
  esac
done

cleanup() {
  if [ -z "${BASE_BUILD:-}" ] && [ "${TT_AGAINST_KEEP:-0}" != 1 ] && [ -d "$src" ]; then
    git -C "$root" worktree remove --force "$src" || true
  fi
}
trap cleanup EXIT
if [ ! -d "$src" ]; then
  git -C "$root" worktree add --detach "$src" "$commit" >/dev/null
fi

configure_build() { # SRC BUILD_DIR
  cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release >/dev/null
  # shellcheck disable=SC2086
  cmake --build "$2" -j "$jobs" --target $targets >"$out/build-$(basename "$2").log" 2>&1 ||
    { echo "bench_against: building $1 failed; see $out/build-$(basename "$2").log" >&2; exit 1; }
}
echo "building $short (baseline) in $bbuild and $(git -C "$root" rev-parse --short=12 HEAD) (now) in $build"
configure_build "$src" "$bbuild"
configure_build "$root" "$build"

run() { # TREE BUILD_DIR NAME OUTFILE
  local tree=$1 b=$2 n=$3
  case $n in
    track) "$b/tests/track/bench_track" --frames 90 --cache "$cache" --baselines 0 ;;
    overlay) "$b/tests/overlay/bench_overlay" ;;
    http) python3 "$tree/tests/http/bench_http.py" "$b/tabletrack" "$b/tt-render" "$cache" ;;
    hall) python3 "$tree/tests/hall/bench_hall.py" "$b/tabletrack" "$b/tt-rec-sample" 50 ;;
  esac >"$4" 2>&1 || echo "bench_against: bench_$n of $b exited $? (see $4)" >&2
}

# Instructions counted under callgrind (CALLGRIND_TOGGLE_COLLECT in bench_track:
# the frames after the first; overlay and track: two lengths, the difference,
# so start-up cancels); writes "instructions per frame: N" to OUTFILE.
count() { # BUILD_DIR NAME OUTFILE
  local b=$1 f=$3.cg i1 i2
  local cg=(valgrind --tool=callgrind --callgrind-out-file=/dev/null)
  collected() { sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$f" | tail -n 1; }
  case $2 in
    track)
      "${cg[@]}" --collect-atstart=no "$b/tests/track/bench_track" --frames 90 --cache "$cache" --baselines 0 \
        --threads 1 >"$f" 2>&1 && i1=$(collected) && echo "instructions per frame: $((i1 / 89))" >"$3" ;;
    overlay)
      "${cg[@]}" "$b/tests/overlay/bench_overlay" 10 live >"$f" 2>&1 && i1=$(collected) &&
        "${cg[@]}" "$b/tests/overlay/bench_overlay" 30 live >"$f" 2>&1 && i2=$(collected) &&
        echo "instructions per frame: $(((i2 - i1) / 20))" >"$3" ;;
    http) # the tracker of bench_http without its viewers: the table it made, 50 and 100 frames
      local t=$cache/http-scene-1080
      [ -f "$t/scenario.json" ] || return 0
      local a=(track --rig "$t/rig.json" --scenario "$t/scenario.json" --stats)
      "${cg[@]}" "$b/tabletrack" "${a[@]}" --source "$t/seq/f00[0-4]*.pgm" >"$f" 2>&1 && i1=$(collected) &&
        "${cg[@]}" "$b/tabletrack" "${a[@]}" --source "$t/seq/f00*.pgm" >"$f" 2>&1 && i2=$(collected) &&
        echo "instructions per frame: $(((i2 - i1) / 50))" >"$3" ;;
    hall) # one of bench_hall's tables: the sample game replayed into a broker
      python3 "$root/tests/hall/count_replay.py" "$b/tabletrack" "$b/tt-rec-sample" >"$3" 2>"$f" ;;
  esac || echo "bench_against: counting $2 of $b failed (see $f)" >&2
}

for n in $names; do
  for ((i = 1; i <= pairs; i++)); do
    echo "bench_$n pair $i of $pairs (load average $(cut -d' ' -f1 /proc/loadavg))"
    if ((i % 2)); then order="a b"; else order="b a"; fi # which goes first alternates
    for side in $order; do
      if [ "$side" = a ]; then run "$src" "$bbuild" "$n" "$out/$n.a.$i.txt"
      else run "$root" "$build" "$n" "$out/$n.b.$i.txt"; fi
    done
  done
done
if [ "${TT_AGAINST_COUNT:-1}" != 0 ] && command -v valgrind >/dev/null; then
  for n in $names; do
    echo "bench_$n: instructions counted under callgrind (once a side: the count does not depend on the load)"
    count "$bbuild" "$n" "$out/$n.count.a.txt"
    count "$build" "$n" "$out/$n.count.b.txt"
  done
fi
# shellcheck disable=SC2086
python3 "$root/samples/bench_against.py" "$out" "$short" "$(git -C "$root" rev-parse --short=12 HEAD)" $names
