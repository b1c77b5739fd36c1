#!/usr/bin/env bash
# Full-coverage run-time benchmark: JDK 17's java.base woven (major weave
# --full-coverage) with an empty before advice on every execution
# (bench/EmptyAdvice.aj: the price of the weaving and the bypasses), with
# ExecutionCounter and with ObjectTracker, against the plain JDK, in the same
# run: `java -version` (start-up), the coverage program of the tests
# (tests/java/coverage) and javac compiling the weaver's demo and coverage
# sources. Prints wall times (best of N) and ratios to the plain JDK.
#
#   bench/full_coverage.sh
#
# Environment: MAJOR_BENCH_RUNS (N, default 5), MAJOR_BENCH_JDK17 (default
# /usr/lib/jvm/java-17-openjdk-amd64, with jmods). Note that --patch-module
# turns class-data sharing off: the plain JDK is also measured with -Xshare:off
# to tell that cost from the weaving's.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${MAJOR_BENCH_RUNS:-5}
JDK=${MAJOR_BENCH_JDK17:-/usr/lib/jvm/java-17-openjdk-amd64}
JAVA=$JDK/bin/java
if [ ! -f "$JDK/jmods/java.base.jmod" ]; then
  echo "$JDK has no jmods/java.base.jmod (Debian: openjdk-17-jmods)" >&2
  exit 2
fi
cargo build --release -p major-weaver --bin major >/dev/null 2>&1
MAJOR=$ROOT/target/release/major
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$JDK/bin/javac" --release 11 -d "$WORK/classes" $(find tests/java/coverage/app -name '*.java')
JAVAC_SOURCES=$(find tests/java/coverage/app -name '*.java'; echo weaver/demo/Main.java)

for a in EmptyAdvice:bench/EmptyAdvice.aj ExecutionCounter:aspects/ExecutionCounter.aj ObjectTracker:aspects/ObjectTracker.aj; do
  name=${a%%:*}; file=${a#*:}
  "$MAJOR" weave --full-coverage --java-home "$JDK" -a "$file" "$JDK/jmods/java.base.jmod" \
    -o "$WORK/$name.jar" 2>/dev/null
done

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
  for name in EmptyAdvice ExecutionCounter ObjectTracker; do
    t=$(best "$JAVA" --patch-module "java.base=$WORK/$name.jar" "${args[@]}")
    printf '%-10s %-18s %8s %8.2f\n' "$w" "$name" "$t" "$(python3 -c "print($t/$base)")"
  done
done
