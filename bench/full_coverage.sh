#!/usr/bin/env bash
# Full-coverage run-time benchmark: all of JDK 17 woven (major weave --jdk,
# every module, a woven JDK image with its own CDS archive; the empty advice
# also as --jdk-form patch) with an empty before advice on every execution
# (bench/EmptyAdvice.aj: the price of the weaving and the bypasses), with
# ExecutionCounter and with ObjectTracker, against the plain JDK, in the same
# run: `java -version` (start-up), the coverage program of the tests
# (tests/java/coverage) and javac compiling the weaver's demo and coverage
# sources. Prints wall times (best of N) and ratios to the plain JDK.
#
#   bench/full_coverage.sh
#
# Environment: MAJOR_BENCH_RUNS (N, default 5), MAJOR_BENCH_JDK17 (default
# /usr/lib/jvm/java-17-openjdk-amd64). Note that --patch-module turns
# class-data sharing off and the module system's fast path too: the plain JDK
# is also measured with -Xshare:off, and with a patch of one empty class
# ("plain, patched"), to tell those costs from the weaving's.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${MAJOR_BENCH_RUNS:-5}
JDK=${MAJOR_BENCH_JDK17:-/usr/lib/jvm/java-17-openjdk-amd64}
JAVA=$JDK/bin/java
cargo build --release -p major-weaver --bin major >/dev/null 2>&1
MAJOR=$ROOT/target/release/major
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$JDK/bin/javac" --release 11 -d "$WORK/classes" $(find tests/java/coverage/app -name '*.java')
JAVAC_SOURCES=$(find tests/java/coverage/app -name '*.java'; echo weaver/demo/Main.java)

for a in EmptyAdvice:bench/EmptyAdvice.aj ExecutionCounter:aspects/ExecutionCounter.aj ObjectTracker:aspects/ObjectTracker.aj; do
  name=${a%%:*}; file=${a#*:}
  "$MAJOR" weave --jdk="$JDK" -a "$file" -o "$WORK/$name" 2>/dev/null
done
# The same empty advice as patches (--jdk-form patch), for comparison.
"$MAJOR" weave --jdk="$JDK" --jdk-form patch -a bench/EmptyAdvice.aj -o "$WORK/EmptyPatch" 2>/dev/null
# A patch of one empty class: the price of --patch-module alone.
mkdir -p "$WORK/empty/src/major/bench"
echo 'package major.bench; final class Empty {}' > "$WORK/empty/src/major/bench/Empty.java"
"$JDK/bin/javac" --patch-module java.base="$WORK/empty/src" -d "$WORK/empty/classes" \
  "$WORK/empty/src/major/bench/Empty.java"
"$JDK/bin/jar" cf "$WORK/empty.jar" -C "$WORK/empty/classes" .

# best wall time in seconds of N runs of a command (stdout/stderr dropped)
best() {
  python3 - "$RUNS" "$@" <<'PY'
import subprocess, sys, time
runs = int(sys.argv[1]); cmd = sys.argv[2:]
best = None
for _ in range(runs):
    t = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    d = time.monotonic() - t
    if r.returncode != 0:
        print("FAILED: " + " ".join(cmd), file=sys.stderr); sys.exit(1)
    best = d if best is None else min(best, d)
print(f"{best:.3f}")
PY
}

printf '%-10s %-18s %8s %8s\n' workload jdk seconds ratio
for w in version program javac; do
  case $w in
    version) args=(-version) ;;
    program) args=(-cp "$WORK/classes" app.Main) ;;
    javac) args=(-m jdk.compiler/com.sun.tools.javac.Main -d "$WORK/javac-out" $JAVAC_SOURCES) ;;
  esac
  base=$(best "$JAVA" "${args[@]}")
  printf '%-10s %-18s %8s %8s\n' "$w" plain "$base" 1.00
  noshare=$(best "$JAVA" -Xshare:off "${args[@]}")
  printf '%-10s %-18s %8s %8.2f\n' "$w" "plain, no CDS" "$noshare" "$(python3 -c "print($noshare/$base)")"
  patched=$(best "$JAVA" --patch-module "java.base=$WORK/empty.jar" "${args[@]}")
  printf '%-10s %-18s %8s %8.2f\n' "$w" "plain, patched" "$patched" "$(python3 -c "print($patched/$base)")"
  t=$(best "$JAVA" "@$WORK/EmptyPatch/java.args" "${args[@]}")
  printf '%-10s %-18s %8s %8.2f\n' "$w" "EmptyAdvice, patch" "$t" "$(python3 -c "print($t/$base)")"
  for name in EmptyAdvice ExecutionCounter ObjectTracker; do
    t=$(best "$WORK/$name/bin/java" "${args[@]}")
    printf '%-10s %-18s %8s %8.2f\n' "$w" "$name" "$t" "$(python3 -c "print($t/$base)")"
  done
done
