#!/usr/bin/env bash
# Incremental weaving benchmark: guava's classes (/usr/share/java/guava.jar)
# woven fully and then incrementally after a one-class change (a string
# literal in a method body of com/google/common/base/Strings, so the class's
# bytes change and nothing another class looks up does) and after no change,
# in two forms: the classes unpacked into a class directory woven into a
# directory (updated in place), and the jar woven into a jar (written whole,
# the classes that need no weave taken from the previous jar). Prints the
# best of N wall times and of N CPU times (user + system) of the `major
# weave` process, and the ratio of each incremental weave to the full one
# measured in the same run, for two aspects: CallCounter (call shadows:
# every call's declaring type is looked up) and ExecutionCounter. (On a
# loaded machine the wall times wait for a processor; the CPU times do not.)
#
#   bench/incremental.sh
#
# Environment: MAJOR_BENCH_RUNS (N, default 5); MAJOR_BENCH_ASPECTS and
# MAJOR_BENCH_FORMS choose rows (default "CallCounter ExecutionCounter" and
# "dir jar"). Every incremental output is
# compared with a full weave of the same classes (diff -r, cmp), and the run
# fails if they differ.
#
# Three more rows per aspect and form, "resident: ...", run the same weaves
# through a resident weaver (`major serve`, as the Maven plugin's
# <resident> does): the wall time as its client sees it and the CPU time
# the server spent (its log's line per request); their ratios are to the
# resident full weave.
#
# A last row per aspect and form, "floor: one class alone", is a full weave
# of the changed class by itself (a directory or jar holding only it): what
# any run costs whatever it weaves (process start, the aspects from the
# cache, the runtime classes written), the least an update could cost.
#
# The one-class change must not recompile the aspects: the aspect cache keys
# javac's output on the classes javac read (none of guava's here), so the run
# must take the aspects from the cache (`--timings` says "aspects (cached)");
# the script fails otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${MAJOR_BENCH_RUNS:-5}
ASPECTS=${MAJOR_BENCH_ASPECTS:-CallCounter ExecutionCounter}
FORMS=${MAJOR_BENCH_FORMS:-dir jar}
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
cp "$JAR" "$WORK/guava.jar"
# The changed class alone, in a directory and in a jar.
mkdir -p "$WORK/alone/com/google/common/base"
cp "$WORK/guava/com/google/common/base/Strings.class" "$WORK/alone/com/google/common/base/"
(cd "$WORK/alone" && python3 -c "import zipfile; z = zipfile.ZipFile('../alone.jar', 'w'); z.write('com/google/common/base/Strings.class')")
CACHE=$WORK/cache

# "wall cpu" milliseconds of one `major weave` of the input into $1.
weave() {
    python3 - "$WORK/log" "$MAJOR" weave --timings --cache-dir "$CACHE" --aspect "$ASPECT" \
        "$INPUT" -o "$1" <<'EOF' || { cat "$WORK/log"; exit 1; }
import os, subprocess, sys, time
# The CPU time of the one child, from wait4 (RUSAGE_CHILDREN counts more).
t = time.perf_counter()
with open(sys.argv[1], 'w') as log:
    p = subprocess.Popen(sys.argv[2:], stderr=log)
    _, status, r = os.wait4(p.pid, 0)
wall = (time.perf_counter() - t) * 1000
print(f"{wall:.0f} {(r.ru_utime + r.ru_stime) * 1000:.0f}")
sys.exit(os.waitstatus_to_exitcode(status))
EOF
}

# The resident weaver, for the "resident" rows.
SOCK=$WORK/serve.sock
"$MAJOR" serve --socket "$SOCK" --idle-timeout 3600 2>"$WORK/serve.log" &
SERVE_PID=$!
trap 'kill $SERVE_PID 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 200); do [ -S "$SOCK" ] && break; sleep 0.05; done
[ -S "$SOCK" ] || { echo "major serve did not start:"; cat "$WORK/serve.log"; exit 1; }

# "wall cpu" milliseconds of one weave of the input into $1 by the resident
# weaver.
serve_weave() {
    python3 "$ROOT/bench/serve_client.py" "$SOCK" "$WORK/serve.log" weave --timings \
        --cache-dir "$CACHE" --aspect "$ASPECT" "$INPUT" -o "$1" 2>"$WORK/log" \
        || { cat "$WORK/log"; exit 1; }
}

# Best of a list of numbers.
best() { printf '%s\n' "$@" | sort -n | head -1; }

# Changes the one class (in the directory, or in the jar, rewritten):
# toggles a letter of a string literal.
edit() {
    python3 - "$INPUT" <<'EOF'
import os, sys, zipfile
p = sys.argv[1]
name = 'com/google/common/base/Strings.class'
a, b = b'invalid count: %s', b'invalid Count: %s'
def toggle(d):
    return d.replace(a, b) if a in d else d.replace(b, a)
if os.path.isdir(p):
    f = os.path.join(p, name)
    d = open(f, 'rb').read()
    open(f, 'wb').write(toggle(d))
else:
    with zipfile.ZipFile(p) as z:
        items = [(i, z.read(i)) for i in z.infolist()]
    with zipfile.ZipFile(p + '.tmp', 'w') as z:
        for i, d in items:
            z.writestr(i, toggle(d) if i.filename == name else d)
    os.replace(p + '.tmp', p)
EOF
}

# The output is the same as a full weave's.
same() {
    if [ -d "$1" ]; then diff -r "$1" "$2" >/dev/null; else cmp -s "$1" "$2"; fi
}

printf '%-18s %-5s %-22s %9s %7s %9s %7s\n' aspect form run "wall ms" ratio "cpu ms" ratio
for A in $ASPECTS; do
    ASPECT=$ROOT/aspects/$A.aj
    for FORM in $FORMS; do
        if [ "$FORM" = dir ]; then INPUT=$WORK/guava EXT=""; else INPUT=$WORK/guava.jar EXT=.jar; fi
        rm -rf "$CACHE" "$WORK/inc$EXT" "$WORK/.inc$EXT.major"
        weave "$WORK/warm$EXT" >/dev/null # the aspects into the cache
        full_w=() full_c=()
        for _ in $(seq "$RUNS"); do
            rm -rf "$WORK/full$EXT"
            read -r w c <<<"$(weave "$WORK/full$EXT")"
            [ -n "${c:-}" ] || { cat "$WORK/log"; exit 1; }
            full_w+=("$w") full_c+=("$c")
        done
        weave "$WORK/inc$EXT" >/dev/null # the state
        nochange_w=() nochange_c=() change_w=() change_c=()
        for _ in $(seq "$RUNS"); do
            read -r w c <<<"$(weave "$WORK/inc$EXT")"
            [ -n "${c:-}" ] || { cat "$WORK/log"; exit 1; }
            nochange_w+=("$w") nochange_c+=("$c")
            edit
            read -r w c <<<"$(weave "$WORK/inc$EXT")"
            [ -n "${c:-}" ] || { cat "$WORK/log"; exit 1; }
            change_w+=("$w") change_c+=("$c")
            grep -q "re-wove 1 of" "$WORK/log" || { echo "not one class re-woven:"; cat "$WORK/log"; exit 1; }
            grep -q "aspects (cached)" "$WORK/log" || { echo "javac ran again:"; cat "$WORK/log"; exit 1; }
        done
        rm -rf "$WORK/full$EXT"
        weave "$WORK/full$EXT" >/dev/null
        same "$WORK/inc$EXT" "$WORK/full$EXT" || { echo "incremental output differs from a full weave ($FORM)"; exit 1; }
        floor_w=() floor_c=()
        WHOLE=$INPUT INPUT=$WORK/alone$EXT
        for _ in $(seq "$RUNS"); do
            rm -rf "$WORK/floor$EXT"
            read -r w c <<<"$(weave "$WORK/floor$EXT")"
            [ -n "${c:-}" ] || { cat "$WORK/log"; exit 1; }
            floor_w+=("$w") floor_c+=("$c")
        done
        INPUT=$WHOLE
        # The same weaves through the resident weaver.
        rfull_w=() rfull_c=()
        for _ in $(seq "$RUNS"); do
            rm -rf "$WORK/rfull$EXT"
            read -r w c <<<"$(serve_weave "$WORK/rfull$EXT")"
            [ -n "${c:-}" ] || { cat "$WORK/log"; exit 1; }
            rfull_w+=("$w") rfull_c+=("$c")
        done
        rm -rf "$WORK/rinc$EXT" "$WORK/.rinc$EXT.major"
        serve_weave "$WORK/rinc$EXT" >/dev/null # the state
        rnochange_w=() rnochange_c=() rchange_w=() rchange_c=()
        for _ in $(seq "$RUNS"); do
            read -r w c <<<"$(serve_weave "$WORK/rinc$EXT")"
            [ -n "${c:-}" ] || { cat "$WORK/log"; exit 1; }
            rnochange_w+=("$w") rnochange_c+=("$c")
            edit
            read -r w c <<<"$(serve_weave "$WORK/rinc$EXT")"
            [ -n "${c:-}" ] || { cat "$WORK/log"; exit 1; }
            rchange_w+=("$w") rchange_c+=("$c")
            grep -q "re-wove 1 of" "$WORK/log" || { echo "not one class re-woven (resident):"; cat "$WORK/log"; exit 1; }
        done
        rm -rf "$WORK/full$EXT"
        weave "$WORK/full$EXT" >/dev/null
        same "$WORK/rinc$EXT" "$WORK/full$EXT" || { echo "the resident update differs from a full weave ($FORM)"; exit 1; }
        fw=$(best "${full_w[@]}")
        fc=$(best "${full_c[@]}")
        rfw=$(best "${rfull_w[@]}")
        rfc=$(best "${rfull_c[@]}")
        for row in full nochange change floor rfull rnochange rchange; do
            case $row in
                full) name="full weave" w=$fw c=$fc ;;
                nochange) name="no change" w=$(best "${nochange_w[@]}") c=$(best "${nochange_c[@]}") ;;
                change) name="one class changed" w=$(best "${change_w[@]}") c=$(best "${change_c[@]}") ;;
                floor) name="floor: one class alone" w=$(best "${floor_w[@]}") c=$(best "${floor_c[@]}") ;;
                rfull) name="resident: full weave" w=$rfw c=$rfc ;;
                rnochange) name="resident: no change" w=$(best "${rnochange_w[@]}") c=$(best "${rnochange_c[@]}") ;;
                rchange) name="resident: one changed" w=$(best "${rchange_w[@]}") c=$(best "${rchange_c[@]}") ;;
            esac
            case $row in r*) bw=$rfw bc=$rfc ;; *) bw=$fw bc=$fc ;; esac
            printf '%-18s %-5s %-22s %9s %7s %9s %7s\n' "$A" "$FORM" "$name" "$w" \
                "$(python3 -c "print(f'{$w/$bw:.3f}')")" "$c" "$(python3 -c "print(f'{$c/$bc:.3f}')")"
        done
    done
done
