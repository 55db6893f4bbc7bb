#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_install.sh install|deb BUILD_DIR
#   install: `cmake --install` into a temporary DESTDIR under /usr; checks the file list, the launcher
#            (desktop-file-validate), the AppStream metainfo (appstreamcli validate), the MIME type (a private
#            update-mime-database maps *.poslab to application/x-poslab-session), every icon's pixel size,
#            and runs the installed `poslab --version` and `poslab schemes`.
#   deb:     `cpack -G DEB` into a temporary folder; checks the package's file list and dependencies, unpacks
#            it with dpkg-deb -x and runs `poslab --version` and `poslab schemes` from there.
# Exit 77 (CTest's skip) when a tool it needs is missing.
set -euo pipefail
mode=$1
build=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

id=io.github.poslab.PosLab
sizes="16 22 24 32 48 64 128 256 512"
expected() {
  echo usr/bin/poslab
  echo usr/share/applications/$id.desktop
  echo usr/share/metainfo/$id.metainfo.xml
  echo usr/share/mime/packages/$id.xml
  echo usr/share/icons/hicolor/scalable/apps/$id.svg
  echo usr/share/icons/hicolor/scalable/mimetypes/application-x-poslab-session.svg
  for s in $sizes; do
    echo usr/share/icons/hicolor/${s}x${s}/apps/$id.png
    echo usr/share/icons/hicolor/${s}x${s}/mimetypes/application-x-poslab-session.png
  done
}
expected | sort >"$work/expected"

# The installed program runs and names the project's version.
run_binary() {
  local root=$1
  local version
  version=$(QT_QPA_PLATFORM=offscreen "$root/usr/bin/poslab" --version) || fail "$root/usr/bin/poslab --version failed"
  echo "$version" | grep -q "^poslab $project_version" || fail "--version printed '$version', not poslab $project_version"
  QT_QPA_PLATFORM=offscreen "$root/usr/bin/poslab" schemes >"$work/schemes" || fail "poslab schemes failed"
  grep -q "^rope" "$work/schemes" || fail "poslab schemes does not list rope"
}
project_version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$project_version" ] || fail "no CMAKE_PROJECT_VERSION in $build/CMakeCache.txt"

if [ "$mode" = deb ]; then
  command -v cpack >/dev/null && command -v dpkg-deb >/dev/null || skip "cpack or dpkg-deb is missing"
  (cd "$work" && cpack -G DEB -B "$work/pkg" --config "$build/CPackConfig.cmake" >"$work/cpack.log" 2>&1) \
    || { cat "$work/cpack.log" >&2; fail "cpack -G DEB failed"; }
  deb=$(ls "$work"/pkg/poslab_"$project_version"_*.deb 2>/dev/null | head -n 1)
  [ -n "$deb" ] || fail "cpack made no poslab_${project_version}_*.deb"
  dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./||' | sort >"$work/listed"
  diff -u "$work/expected" "$work/listed" || fail "the package's files differ from the expected list"
  depends=$(dpkg-deb -f "$deb" Depends)
  for p in libqt6core6 libqt6gui6 libqt6widgets6 libqt6charts6 libqt6svg6 libc6; do
    echo "$depends" | grep -qw "$p" || fail "Depends lacks $p: $depends"
  done
  [ "$(dpkg-deb -f "$deb" Package)" = poslab ] || fail "the package is not named poslab"
  [ "$(dpkg-deb -f "$deb" Version)" = "$project_version" ] || fail "the package version is not $project_version"
  dpkg-deb -x "$deb" "$work/root"
  run_binary "$work/root"
  echo "ok: $(basename "$deb") ($(stat -c %s "$deb") bytes), Depends: $depends"
  exit 0
fi

[ "$mode" = install ] || fail "mode is install or deb, not '$mode'"
DESTDIR="$work/root" cmake --install "$build" --prefix /usr >"$work/install.log" 2>&1 \
  || { cat "$work/install.log" >&2; fail "cmake --install failed"; }
(cd "$work/root" && find . -type f -o -type l) | sed 's|^\./||' | sort >"$work/installed"
diff -u "$work/expected" "$work/installed" || fail "the installed files differ from the expected list"
share="$work/root/usr/share"

# The launcher: desktop-file-validate where it is installed, else the keys the specification requires.
desktop="$share/applications/$id.desktop"
if command -v desktop-file-validate >/dev/null; then
  out=$(desktop-file-validate "$desktop" 2>&1) || fail "desktop-file-validate: $out"
  echo "$out" | grep -E "error|warning" && fail "desktop-file-validate: $out"
else
  echo "note: desktop-file-validate is missing; checking the required keys only"
fi
for key in "Type=Application" "Name=PosLab" "Exec=poslab %U" "Icon=$id" "MimeType=application/x-poslab-session;x-scheme-handler/poslab;"; do
  grep -qx "$key" "$desktop" || fail "$desktop lacks the line $key"
done
grep -q "^Categories=Education;Science;" "$desktop" || fail "$desktop: Categories do not start with Education;Science;"

# AppStream: validated strictly (anything above a pedantic hint fails), and its release is this version.
metainfo="$share/metainfo/$id.metainfo.xml"
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net --strict "$metainfo" >"$work/as.log" 2>&1 || { cat "$work/as.log" >&2; fail "appstreamcli validate"; }
else
  echo "note: appstreamcli is missing; checking the required elements only"
fi
grep -q "<id>$id</id>" "$metainfo" || fail "$metainfo: id is not $id"
grep -q "<release version=\"$project_version\" date=\"[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]\"/>" "$metainfo" \
  || fail "$metainfo: no release $project_version with a date"
grep -q "<launchable type=\"desktop-id\">$id.desktop</launchable>" "$metainfo" || fail "$metainfo: launchable"
grep -q "<binary>poslab</binary>" "$metainfo" || fail "$metainfo: provides binary"

# The MIME type, compiled by shared-mime-info into a private database.
if command -v update-mime-database >/dev/null; then
  mkdir -p "$work/mime/packages"
  cp "$share/mime/packages/$id.xml" "$work/mime/packages/"
  update-mime-database "$work/mime" >/dev/null 2>&1 || fail "update-mime-database refused $id.xml"
  grep -qx "50:application/x-poslab-session:\*\.poslab" "$work/mime/globs2" \
    || fail "globs2 does not map *.poslab: $(cat "$work/mime/globs2")"
  grep -qx "application/x-poslab-session application/json" "$work/mime/subclasses" \
    || fail "application/x-poslab-session is not a sub-class of application/json"
  grep -qx "application/x-poslab-session:application-x-poslab-session" "$work/mime/icons" \
    || fail "the MIME type does not name its icon"
else
  echo "note: update-mime-database is missing; the MIME file is not compiled"
fi

# Each PNG is as large as its folder says (the width and height in the IHDR chunk, bytes 16 to 23).
for s in $sizes; do
  for png in "$share/icons/hicolor/${s}x${s}/apps/$id.png" \
             "$share/icons/hicolor/${s}x${s}/mimetypes/application-x-poslab-session.png"; do
    [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$png is not a PNG"
    wh=$(od -An -tu1 -j16 -N8 "$png" | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}')
    [ "$wh" = "${s}x${s}" ] || fail "$png is $wh, not ${s}x${s}"
  done
done

run_binary "$work/root"
echo "ok: $(wc -l <"$work/installed") files installed and checked"
