#!/usr/bin/env bash
# Writes the order in which a JDK's start-up loads its classes, as the agent
# ships it for first runs (agent/src/boot_order.rs): a hello world run with
# class-data sharing off (as under the agent's early class hook), the classes
# of the run-time image in the order the JVM loaded them.
#
#   agent/boot-orders/generate.sh JDK_HOME     (writes agent/boot-orders/jdkN.txt)
set -euo pipefail
jdk=${1:?usage: generate.sh JDK_HOME}
cd "$(dirname "$0")"
feature=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$jdk/release")
[ -n "$feature" ] || { echo "no JAVA_VERSION in $jdk/release" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/Hello.java" <<'JAVA'
public class Hello {
    public static void main(String[] args) {
        System.out.println("Hello, world");
    }
}
JAVA
"$jdk/bin/javac" -d "$work" "$work/Hello.java"
"$jdk/bin/java" -Xshare:off "-Xlog:class+load=info:file=$work/log:uptime" -cp "$work" Hello >/dev/null
{
  echo "# The classes JDK $feature's start-up loads, in the order it loads them:"
  echo "# agent/boot-orders/generate.sh on $("$jdk/bin/java" -version 2>&1 | head -1 | tr -d '"')."
  # "[0.006s][info][class,load] java.lang.Object source: jrt:/java.base"
  sed -n 's/^.*\] \([^ ]*\) source: jrt:\/.*$/\1/p' "$work/log" | tr . /
} >"jdk$feature.txt"
echo "wrote agent/boot-orders/jdk$feature.txt: $(grep -vc '^#' "jdk$feature.txt") classes"
