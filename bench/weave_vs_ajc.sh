#!/usr/bin/env bash
# Weaving benchmark: `major weave` against AspectJ's ajc 1.9.5 on the same jars
# and aspects, measured in the same run. See bench/README.md ("major weave
# against ajc").
#
#   bench/weave_vs_ajc.sh [guava] [commons-lang3]      (default: both)
#   bench/run.sh weave [guava] [commons-lang3]
#
# Environment:
#   MAJOR_BENCH_RUNS           N in best-of-N (default 5)
#   MAJOR_BENCH_JDK17          the JDK that runs ajc and compiles major's aspects
#                              (default /usr/lib/jvm/java-17-openjdk-amd64)
#   MAJOR_BENCH_AJC_JAVA_OPTS  JVM options for ajc (default: none, i.e. the JVM's
#                              default heap; Debian's `ajc` script caps the heap at
#                              64 MB, which is too small for guava)
#   MAJOR_BENCH_KEEP           a directory to keep the woven jars in (default: a
#                              temporary directory, removed at the end)
#   MAJOR_BENCH_PAUSE          seconds to wait before each measured command, so
#                              that the previous one's exit (ajc's JVM frees
#                              ~600 MB) does not spill into it (default 0.5)
#
# Exit status: 0 when every weave succeeded (a missed target is reported, not an
# error), 1 when a weave failed, 2 on bad usage. Nothing is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

RUNS=${MAJOR_BENCH_RUNS:-5}
JDK=${MAJOR_BENCH_JDK17:-/usr/lib/jvm/java-17-openjdk-amd64}
AJC_JAVA_OPTS=${MAJOR_BENCH_AJC_JAVA_OPTS:-}
ASPECTJRT=/usr/share/java/aspectjrt.jar
ASPECTJTOOLS=/usr/share/java/aspectjtools.jar
GUAVA=/usr/share/java/guava.jar
LANG3=/usr/share/java/commons-lang3.jar
ASPECTS=(ObjectTracker ExecutionCounter)
# Targets: major at least SPEED_TARGET times faster, and at most 1/MEM_TARGET of
# ajc's peak memory.
SPEED_TARGET=40
MEM_TARGET=5

case "$RUNS" in '' | *[!0-9]* | 0) echo "MAJOR_BENCH_RUNS must be a positive integer" >&2; exit 2 ;; esac

skip() {
  echo "skipped: $*"
  exit 0
}

# --- what can run -----------------------------------------------------------
[ -x "$JDK/bin/java" ] || skip "no JDK at $JDK (set MAJOR_BENCH_JDK17)"
if [ ! -f "$ASPECTJTOOLS" ] || [ ! -f "$ASPECTJRT" ] || ! command -v ajc >/dev/null 2>&1; then
  skip "ajc 1.9.5 is not installed (Debian package aspectj: ajc, $ASPECTJTOOLS, $ASPECTJRT)"
fi

want=("$@")
[ ${#want[@]} -gt 0 ] || want=(guava commons-lang3)
workloads=() # "name jar"
for w in "${want[@]}"; do
  case "$w" in
    guava) jar=$GUAVA ;;
    commons-lang3) jar=$LANG3 ;;
    *) echo "unknown workload $w (known: guava, commons-lang3)" >&2; exit 2 ;;
  esac
  if [ -f "$jar" ]; then
    workloads+=("$w $jar")
  elif [ "$w" = guava ]; then
    skip "$GUAVA is missing (Debian package libguava-java)"
  else
    echo "skipped: $w: $jar is missing (Debian package libcommons-lang3-java)"
  fi
done
[ ${#workloads[@]} -gt 0 ] || skip "no input jar"

# --- how to measure ---------------------------------------------------------
# measure OUTFILE CMD...: runs CMD (its output goes to "$OUTFILE.log") and writes
# "<wall seconds> <peak RSS KB>" to OUTFILE. The peak RSS is ru_maxrss of the
# waited-for child: the largest resident set of any single process of the run
# (for major, that can be the javac it starts to compile the aspect).
# Python's monotonic clock gives milliseconds; /usr/bin/time only hundredths,
# which is coarse next to major's ~0.1 s.
PAUSE=${MAJOR_BENCH_PAUSE:-0.5}
if command -v python3 >/dev/null 2>&1; then
  MEASURE_WITH="python3 time.monotonic, resource.getrusage(RUSAGE_CHILDREN)"
  measure() {
    local out=$1
    shift
    sleep "$PAUSE"
    python3 - "$out" "$@" <<'PY'
import resource, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
with open(out + ".log", "wb") as log:
    t = time.monotonic()
    rc = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT)
    wall = time.monotonic() - t
with open(out, "w") as f:
    f.write("%.3f %d\n" % (wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(rc)
PY
  }
elif [ -x /usr/bin/time ]; then
  MEASURE_WITH="/usr/bin/time"
  measure() {
    local out=$1
    shift
    sleep "$PAUSE"
    /usr/bin/time -f '%e %M' -o "$out" "$@" >"$out.log" 2>&1
  }
else
  skip "neither python3 nor /usr/bin/time to measure with"
fi

# --- build major ------------------------------------------------------------
echo "building major (release)..." >&2
cargo build --release -q -p major-weaver --bin major
MAJOR=$ROOT/target/release/major

if [ -n "${MAJOR_BENCH_KEEP:-}" ]; then
  WORK=$MAJOR_BENCH_KEEP
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/major-weave-bench.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
fi

run_major() { # jar aspect out mode: cached (compiled aspect from the cache) | javac (compiled again)
  local cache=(--cache-dir "$WORK/cache")
  if [ "$4" = javac ]; then
    # As after editing the aspect: its compiled classes are gone from the
    # cache, javac runs (with its class-data archive from an earlier run).
    cache=(--cache-dir "$WORK/cache-javac")
    rm -f "$WORK/cache-javac/"*.classes
  fi
  measure "$WORK/m.time" "$MAJOR" weave --java-home "$JDK" "${cache[@]}" --aspect "$ROOT/aspects/$2.aj" "$1" -o "$3"
}
run_ajc() { # jar aspect out
  # ajc drops ajcore.*.txt dumps into its working directory: run it in $WORK.
  # shellcheck disable=SC2086 # AJC_JAVA_OPTS is a list of options
  (cd "$WORK" && measure "$WORK/a.time" "$JDK/bin/java" $AJC_JAVA_OPTS \
    -cp "$ASPECTJTOOLS:$ASPECTJRT" org.aspectj.tools.ajc.Main \
    -8 -inpath "$1" -cp "$ASPECTJRT" -outjar "$3" -Xlint:ignore -nowarn "$ROOT/aspects/$2.aj")
}

# best "<s> <kb>" "<s> <kb>": the smaller of each (best-of-N, taken separately).
best() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    if (a == "") { print b; exit }
    split(a, x, " "); split(b, y, " ");
    printf "%s %s\n", (y[1] + 0 < x[1] + 0 ? y[1] : x[1]), (y[2] + 0 < x[2] + 0 ? y[2] : x[2]) }'
}

echo "major weave against ajc 1.9.5 (ajc $AJC_JAVA_OPTS -8 -inpath), best of $RUNS, measured with $MEASURE_WITH" >&2
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# An empty input shows each weaver's fixed cost: for major, compiling the
# aspect (javac) and indexing the JDK; for ajc, starting its JVM and compiling
# the aspect. For information only (no target).
mkdir -p "$WORK/empty"
workloads+=("(empty-input) $WORK/empty")

failed=0
rows=()
for wl in "${workloads[@]}"; do
  name=${wl%% *}
  jar=${wl#* }
  aspects=("${ASPECTS[@]}")
  [ "$name" = "(empty-input)" ] && aspects=(ObjectTracker)
  for aspect in "${aspects[@]}"; do
   for mode in cached javac; do
    label="$name + $aspect ($mode)"
    mbest="" abest="" status=""
    mout="$WORK/${name//[()]/}-$aspect-major.jar"
    aout="$WORK/${name//[()]/}-$aspect-ajc.jar"
    # Warm up: the cached rows measure weaving with an unchanged aspect, the
    # javac rows weaving after the aspect changed (javac's class-data archive,
    # made by the first javac run, in place).
    run_major "$jar" "$aspect" "$mout" "$mode" >/dev/null 2>&1 || true
    # Interleaved: major, ajc, major, ajc... so that load changes hit both.
    for ((i = 1; i <= RUNS; i++)); do
      rm -f "$mout" "$aout"
      if ! run_major "$jar" "$aspect" "$mout" "$mode" || [ ! -s "$mout" ]; then
        echo "FAILED: major weave $label:" >&2
        tail -20 "$WORK/m.time.log" >&2
        status="major FAILED"
        break
      fi
      mbest=$(best "$mbest" "$(tail -1 "$WORK/m.time")")
      if ! run_ajc "$jar" "$aspect" "$aout" || [ ! -s "$aout" ]; then
        echo "FAILED: ajc weave $label:" >&2
        tail -20 "$WORK/a.time.log" >&2
        status="ajc FAILED"
        break
      fi
      abest=$(best "$abest" "$(tail -1 "$WORK/a.time")")
      echo "  run $i $label: major $(tail -1 "$WORK/m.time") ajc $(tail -1 "$WORK/a.time") (s KB)" >&2
    done
    if [ -n "$status" ]; then
      failed=1
      rows+=("$(printf '%-44s %s' "$label" "$status")")
      continue
    fi
    info=0
    [ "$name" = "(empty-input)" ] && info=1
    rows+=("$(awk -v l="$label" -v m="$mbest" -v a="$abest" -v st="$SPEED_TARGET" -v mt="$MEM_TARGET" -v info=$info 'BEGIN {
      split(m, x, " "); split(a, y, " ");
      mt_s = x[1] + 0; at_s = y[1] + 0; mm = x[2] / 1024; am = y[2] / 1024;
      if (mt_s < 0.001) mt_s = 0.001;
      speed = at_s / mt_s; mem = mm / am;
      printf "%-44s %8.3f %8.3f %7.1fx %8.0f %8.0f %7.2f  %-6s %-6s\n", l, x[1], y[1], speed, mm, am, mem,
        (info ? "-" : speed >= st ? "ok" : "MISSED"), (info ? "-" : mem * mt <= 1 ? "ok" : "MISSED") }')")
   done
  done
done

echo
printf '%-44s %8s %8s %8s %8s %8s %7s  %-6s %-6s\n' workload "major s" "ajc s" speed "major MB" "ajc MB" memory ">=${SPEED_TARGET}x" "<=1/${MEM_TARGET}"
for r in "${rows[@]}"; do
  echo "$r"
done
echo
echo "speed = ajc s / major s (target >= ${SPEED_TARGET}x); memory = major MB / ajc MB (target <= 1/${MEM_TARGET});"
echo "best of $RUNS interleaved runs, time and peak RSS taken separately; MB = 2^20 bytes;"
echo "(cached): the aspect unchanged since an earlier weave, its javac output reused from major's cache;"
echo "(javac): the aspect changed since the last weave: compiled by javac again; ajc always compiles it."
echo "(empty-input): an empty class directory, i.e. each weaver's fixed cost (no target)."
exit $failed
