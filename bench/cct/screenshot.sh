#!/bin/bash
# A flame graph as a browser shows it: headless Chromium renders the
# flamegraph.svg that `major profile` wrote and saves two screenshots, the
# graph's bottom (its roots, where the widest frames are: BOTTOM.png) and its
# top (TOP.png), each the SVG's width by 900 pixels.
#
#   bench/cct/screenshot.sh PROFILE_DIR OUT_PREFIX
#
# (Debian: apt-get install chromium.)
set -eu
dir=$(cd "${1:?profile directory}" && pwd)
out=${2:?output prefix}
svg=$dir/flamegraph.svg
[ -f "$svg" ] || { echo "no $svg" >&2; exit 2; }
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || { echo "headless Chromium is not installed (apt-get install chromium)" >&2; exit 2; }
read -r width height < <(head -c 4096 "$svg" | grep -o '<svg [^>]*>' | head -1 |
  sed -E 's/.*width="([0-9]+)".*height="([0-9]+)".*/\1 \2/')
page=$(mktemp --suffix=.html)
trap 'rm -f "$page"' EXIT
shot() {
  local top=$1 png=$2
  cat > "$page" <<HTML
<html><body style="margin:0;overflow:hidden"><div style="height:900px;overflow:hidden;position:relative">
<object data="file://$svg" type="image/svg+xml" style="position:absolute;top:${top}px;left:0;width:${width}px;height:${height}px"></object>
</div></body></html>
HTML
  "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size="$width,900" --virtual-time-budget=5000 \
    --screenshot="$png" "file://$page" 2>/dev/null
}
bottom=$((900 - height))
[ $bottom -gt 0 ] && bottom=0
shot "$bottom" "$out-bottom.png"
shot 0 "$out-top.png"
ls -l "$out-bottom.png" "$out-top.png"
