#!/usr/bin/env bash
# Incremental weaving benchmark: guava's classes (/usr/share/java/guava.jar,
# unpacked into a class directory) woven into a directory, fully and then
# incrementally after a one-class change (a string literal in a method body
# of com/google/common/base/Strings, so the class's bytes change and nothing
# another class looks up does) and after no change. Prints the best of N
# wall times of the `major weave` process and the ratio of each incremental
# weave to the full one, for two aspects: CallCounter (call shadows: every
# call's declaring type is looked up) and ExecutionCounter.
#
#   bench/incremental.sh
#
# Environment: MAJOR_BENCH_RUNS (N, default 5). Every incremental output is
# compared with a full weave of the same classes (diff -r), and the run fails
# if they differ.
#
# The one-class change must not recompile the aspects: the aspect cache keys
# javac's output on the classes javac read (none of guava's here), so the run
# must take the aspects from the cache (`--timings` says "aspects (cached)");
# the script fails otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${MAJOR_BENCH_RUNS:-5}
JAR=/usr/share/java/guava.jar
if [ ! -f "$JAR" ]; then
    echo "skipped: $JAR missing (Debian package libguava-java)"
    exit 0
fi
cargo build --release -p major-weaver --bin major >/dev/null 2>&1
MAJOR=$ROOT/target/release/major
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/guava"
(cd "$WORK/guava" && unzip -q "$JAR")
CLASS=$WORK/guava/com/google/common/base/Strings.class
CACHE=$WORK/cache

# Milliseconds of one `major weave` of the classes into $1 (extra options after).
weave() {
    local out=$1
    shift
    local t0 t1
    t0=$(date +%s%N)
    "$MAJOR" weave --timings --cache-dir "$CACHE" --aspect "$ASPECT" "$WORK/guava" -o "$out" "$@" 2>"$WORK/log" \
        || { cat "$WORK/log"; exit 1; }
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}

# Best of a list of numbers.
best() { printf '%s\n' "$@" | sort -n | head -1; }

# Changes the one class: toggles a letter of a string literal.
edit() {
    python3 - "$CLASS" <<'EOF'
import sys
p = sys.argv[1]
d = open(p, 'rb').read()
a, b = b'invalid count: %s', b'invalid Count: %s'
d = d.replace(a, b) if a in d else d.replace(b, a)
open(p, 'wb').write(d)
EOF
}

printf '%-18s %-34s %9s %7s\n' aspect run ms ratio
for A in CallCounter ExecutionCounter; do
    ASPECT=$ROOT/aspects/$A.aj
    rm -rf "$CACHE" "$WORK/inc"
    weave "$WORK/warm" >/dev/null # the aspects into the cache
    full=()
    for _ in $(seq "$RUNS"); do
        rm -rf "$WORK/full"
        full+=("$(weave "$WORK/full")")
    done
    weave "$WORK/inc" >/dev/null # the state
    same=()
    change=()
    for _ in $(seq "$RUNS"); do
        same+=("$(weave "$WORK/inc")")
        edit
        change+=("$(weave "$WORK/inc")")
        grep -q "re-wove 1 of" "$WORK/log" || { echo "not one class re-woven:"; cat "$WORK/log"; exit 1; }
        grep -q "aspects (cached)" "$WORK/log" || { echo "javac ran again:"; cat "$WORK/log"; exit 1; }
    done
    rm -rf "$WORK/full"
    weave "$WORK/full" >/dev/null
    diff -r "$WORK/inc" "$WORK/full" >/dev/null || { echo "incremental output differs from a full weave"; exit 1; }
    f=$(best "${full[@]}")
    for row in "full weave:$f" "no change:$(best "${same[@]}")" \
        "one class changed:$(best "${change[@]}")"; do
        name=${row%%:*}
        ms=${row##*:}
        printf '%-18s %-34s %9s %7s\n' "$A" "$name" "$ms" "$(python3 -c "print(f'{$ms/$f:.3f}')")"
    done
done
