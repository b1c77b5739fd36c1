#!/bin/bash
# The CCT profiler's run-time measurements (bench/README.md, "Calling-context
# profiling", session 12), on the directory that
#   MAJOR_WORKLOAD_KEEP=DIR MAJOR_WORKLOADS=xalan MAJOR_WORKLOAD_ASPECTS=aspects/CctProfiler.aj \
#   cargo test --release -p major-tests --test workloads woven_workloads_report -- --ignored --nocapture
# keeps (DIR/prepared: the workloads' drivers and inputs; DIR/woven-CctProfiler:
# the woven JDK image with every workload's jars woven).
#
#   bench/cct/run.sh whole ROUNDS WORKLOADS CONFIG...      one run per workload and config
#   bench/cct/run.sh steady WORKLOAD N ROUNDS CONFIG...    the driver N times in one JVM
#
# CONFIG is `plain` (JDK 17 unwoven) or a woven image directory; the configs
# run interleaved, round after round, so that the machine's load touches them
# alike. `whole` prints each run's wall and CPU time (all threads: user +
# system), then for each woven config its ratios to `plain` per workload
# (median and best of the rounds, wall/CPU) and their geometric means;
# `steady` prints the median wall and main-thread CPU time of the second half
# of the iterations, and the process's totals.
# PREPARED (default: the parent of the first woven config's directory, /prepared)
# names the prepared directory; JOPTS adds JVM options.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
jdk=${JDK17:-/usr/lib/jvm/java-17-openjdk-amd64}
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
"$jdk/bin/javac" -d "$classes" "$here/Repeat.java"

jars_of() {
  case $1 in
    javac) echo "";;
    xalan) echo "xalan2.jar serializer.jar xercesImpl.jar";;
    h2) echo "h2.jar";;
    hsqldb) echo "hsqldb.jar";;
    lucene) echo "lucene-core-4.10.4.jar lucene-analyzers-common-4.10.4.jar lucene-queryparser-4.10.4.jar";;
    antlr4) echo "antlr4.jar antlr4-runtime.jar antlr3-runtime.jar stringtemplate4.jar";;
    *) echo "unknown workload $1" >&2; exit 2;;
  esac
}

# one CONFIG WORKLOAD N: one run (N > 0: under Repeat); prints its stderr's
# `iter` lines and a TIME line.
one() {
  local cfg=$1 w=$2 n=$3 java cp work
  if [ "$cfg" = plain ]; then
    java=$jdk/bin/java
    cp=$PREPARED/jars/workloads-$w.jar
    for j in $(jars_of "$w"); do cp=$cp:/usr/share/java/$j; done
  else
    java=$cfg/bin/java
    cp=$cfg/app/workloads-$w.jar
    for j in $(jars_of "$w"); do cp=$cp:$cfg/app/$j; done
  fi
  local main=(-cp "$cp" "workloads.$w.Main")
  [ "$n" -gt 0 ] && main=(-cp "$cp:$classes" Repeat "$n" "workloads.$w.Main")
  work=$(mktemp -d)
  local rc=0
  (cd "$work" && /usr/bin/time -f "TIME $cfg $w wall %e cpu %U+%S" "$java" \
    -Duser.language=en -Duser.country=US -Duser.timezone=UTC -Dfile.encoding=UTF-8 \
    ${JOPTS:-} "${main[@]}" "$PREPARED/inputs/$w" >/dev/null 2>"$work/err") || rc=$?
  grep -E "^(TIME|iter)" "$work/err" | tr '\n' ';'
  echo " rc=$rc"
  [ $rc = 0 ] || tail -5 "$work/err" >&2
  rm -rf "$work"
}

first_woven() { for c in "$@"; do [ "$c" != plain ] && { echo "$(dirname "$c")/prepared"; return; }; done; }

mode=${1:?whole or steady}; shift
case $mode in
  whole)
    rounds=$1 ws=$2; shift 2
    PREPARED=${PREPARED:-$(first_woven "$@")}
    log=$classes/times.log
    for _ in $(seq "$rounds"); do for w in ${ws//,/ }; do for c in "$@"; do
      one "$c" "$w" 0 | tee -a "$log"
    done; done; done
    # Each woven config against plain (when measured): per workload the
    # median and the best of the rounds, wall/CPU, and their geometric means.
    python3 - "$log" <<'PY'
import collections, math, re, statistics, sys
runs = collections.defaultdict(list)
for l in open(sys.argv[1]):
    m = re.search(r"TIME (\S+) (\S+) wall ([\d.]+) cpu ([\d.]+)\+([\d.]+); rc=0", l)
    if m:
        runs[m.group(1), m.group(2)].append((float(m.group(3)), float(m.group(4)) + float(m.group(5))))
ws = sorted({w for _, w in runs if ("plain", w) in runs})
geo = lambda r: math.exp(sum(map(math.log, r)) / len(r))
for c in sorted({c for c, _ in runs if c != "plain"}):
    have = [w for w in ws if (c, w) in runs]
    if not have:
        continue
    for name, pick in (("median", statistics.median), ("best", min)):
        r = {w: [pick(x[i] for x in runs[c, w]) / pick(x[i] for x in runs["plain", w]) for i in (0, 1)] for w in have}
        print("%s, %s of %d rounds: %s; geometric mean %.2fx wall, %.2fx CPU" % (
            c, name, min(len(runs[c, w]) for w in have),
            ", ".join("%s %.2f/%.2f" % (w, *r[w]) for w in have),
            geo([r[w][0] for w in have]), geo([r[w][1] for w in have])))
PY
    ;;
  steady)
    w=$1 n=$2 rounds=$3; shift 3
    PREPARED=${PREPARED:-$(first_woven "$@")}
    for _ in $(seq "$rounds"); do for c in "$@"; do
      one "$c" "$w" "$n" | python3 -c '
import re, statistics, sys
l = sys.stdin.read()
it = [tuple(map(int, t)) for t in re.findall(r"iter (\d+) wall (\d+) cpu (\d+)", l)]
h = it[len(it) // 2:] or [(0, 0, 0)]
t = re.search(r"wall ([\d.]+) cpu ([\d.]+)\+([\d.]+)", l)
print("%s %s: iterations %d-%d, median main-thread CPU %d ms, wall %d ms; process wall %s s, CPU %.2f s"
      % (sys.argv[1], sys.argv[2], h[0][0], h[-1][0], statistics.median(x[2] for x in h),
         statistics.median(x[1] for x in h), t.group(1) if t else "?",
         float(t.group(2)) + float(t.group(3)) if t else 0))' "$c" "$w"
    done; done;;
  *) echo "usage: $0 whole ROUNDS WORKLOADS CONFIG... | steady WORKLOAD N ROUNDS CONFIG..." >&2; exit 2;;
esac
