#!/bin/sh
# Builds glance_VERSION-1_ARCH.deb from a static build of glance (make deb, make test-deb):
#
#   dist/build-deb.sh BUILD_DIR MANUAL_DIR OUT_DIR
#
# BUILD_DIR holds glance and glance-renderer (the Swift runtime linked in, as make install builds
# them); MANUAL_DIR the pages swift-argument-parser's generate-manual plugin wrote (glance.1,
# glance.serve.1, ...). The package holds both executables, the systemd units and the
# .thumbnailer of dist/, a man page for glance and each of its commands (glance-serve(1), ...) and
# the bash, zsh and fish completions glance itself writes. Its Depends: are computed: by
# dpkg-shlibdeps from what the executables link, and by dpkg -S for the libraries they load on
# first use (poppler-glib for PDFs, libtiff, libheif and librsvg for TIFF, HEIC/AVIF and SVG,
# FFmpeg's libavformat, libavcodec, libavutil and libswscale for videos and sound, libarchive for
# office documents' packages, e-books and comic books, LibRaw for camera raw photos, libchafa for
# pictures in a terminal). LibreOffice, which draws office
# documents in renderers of their own, is recommended, not required: without it an office document
# is drawn from the thumbnail it carries, or is unsupported.
set -eu
build=$(cd "$1" && pwd)
manual=$(cd "$2" && pwd)
out=$(cd "$3" && pwd)

version=$("$build/glance" --version | sed -n 's/^glance \([0-9][0-9.]*\).*/\1/p')
[ -n "$version" ] || { echo "build-deb: cannot read the version of $build/glance" >&2; exit 1; }
arch=$(dpkg --print-architecture)
root=$out/root
rm -rf "$root"
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/usr/share/thumbnailers" \
  "$root/usr/share/man/man1" "$root/usr/share/doc/glance" "$root/usr/share/bash-completion/completions" \
  "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d"

install -m 755 "$build/glance" "$build/glance-renderer" "$root/usr/bin/"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/glance" "$root/usr/bin/glance-renderer"
install -m 644 dist/glance-watch@.service dist/glance-serve.service dist/glance-worker.service "$root/lib/systemd/system/"
install -m 644 dist/glance.thumbnailer "$root/usr/share/thumbnailers/"

# Man pages: glance.serve.1 becomes glance-serve(1), as Debian names a command's page.
for page in "$manual"/glance*.1; do
  name=$(basename "$page" .1)
  [ "$name" = glance.help ] && continue
  debian=$(echo "$name" | tr . -)
  title=$(echo "$debian" | tr a-z A-Z)
  # The NAME section names the page as whatis(1) and lintian read it (`glance-serve`, one word; the
  # generator writes the quoted command, "glance serve"); the synopsis keeps the command as typed.
  # An empty line (between the generator's paragraphs) becomes a paragraph break groff accepts.
  command=$(sed -n 's/^\.Nm "\(.*\)"$/\1/p' "$page" | head -n 1)
  sed -e "s/^\\.Dt .* 1\$/.Dt $title 1/" -e 's/^$/.Pp/' -e 's/^\.Nd "\(.*\)"$/.Nd \1/' \
      -e "0,/^\\.Nm \".*\"\$/s//.Nm $debian/" -e "s/^\\.Nm\$/.Nm ${command:-$debian}/" "$page" \
    | gzip -9n > "$root/usr/share/man/man1/$debian.1.gz"
done
# The renderer parses its own arguments (no ArgumentParser, to start fast): its page is written by hand.
gzip -9n < dist/glance-renderer.1 > "$root/usr/share/man/man1/glance-renderer.1.gz"

"$build/glance" --generate-completion-script bash | sed "1{/^#!/d}" > "$root/usr/share/bash-completion/completions/glance"
"$build/glance" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_glance"
"$build/glance" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/glance.fish"
chmod 644 "$root"/usr/share/*/completions/glance "$root"/usr/share/zsh/vendor-completions/_glance \
  "$root"/usr/share/fish/vendor_completions.d/glance.fish

cat > "$root/usr/share/doc/glance/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: glance
Comment: Thumbnails and previews for folders of documents.

Files: *
Copyright: 2026 the Glance developers
License: Apache-2.0
Comment: glance-renderer loads libpoppler (GPL-2 or GPL-3): distributed together,
 that combination is under the terms of the GPL-3.0, and its complete
 corresponding source is the Glance source tree it was built from. The libraries
 the programs link and load, and their licences, are listed in the source's
 NOTICE.md.

License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may not
 use this software except in compliance with the License.
 .
 Unless required by applicable law or agreed to in writing, software
 distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
 WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
 License for the specific language governing permissions and limitations
 under the License.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0
 can be found in "/usr/share/common-licenses/Apache-2.0".
COPYRIGHT
printf 'glance (%s-1) unstable; urgency=medium\n\n  * Built from the Glance source tree by make deb.\n\n -- Glance developers <glance@example.org>  %s\n' \
  "$version" "$(date -R)" | gzip -9n > "$root/usr/share/doc/glance/changelog.Debian.gz"

# What the executables link, by dpkg-shlibdeps (it wants a debian/control to read).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debian"
printf 'Source: glance\n\nPackage: glance\nArchitecture: any\n' > "$work/debian/control"
linked=$(cd "$work" && dpkg-shlibdeps -O -e"$root/usr/bin/glance" -e"$root/usr/bin/glance-renderer" 2>/dev/null \
  | sed -n 's/^shlibs:Depends=//p')
[ -n "$linked" ] || { echo "build-deb: dpkg-shlibdeps found no libraries" >&2; exit 1; }
# What they load on first use, by the package that holds each library.
loaded=""
for library in libpoppler-glib.so.8 libchafa.so.0 libtiff.so.6 libheif.so.1 librsvg-2.so.2 libavformat.so.59 \
  libavcodec.so.59 libavutil.so.57 libswscale.so.6 libarchive.so.13 libraw_r.so.20 libgdk_pixbuf-2.0.so.0 \
  libjxl.so.0.7 libgs.so.10 libdjvulibre.so.21 libgxps.so.2 libopenjp2.so.7 libOpenEXRCore-3_1.so.30; do
  path=$(ldconfig -p | awk -v lib="$library" '$1 == lib { print $NF; exit }')
  [ -n "$path" ] || { echo "build-deb: $library is not installed here" >&2; exit 1; }
  package=$(dpkg -S "$(readlink -f "$path")" | head -n 1 | cut -d: -f1)
  loaded="$loaded, $package"
done

cat > "$root/DEBIAN/control" <<CONTROL
Package: glance
Version: $version-1
Architecture: $arch
Maintainer: Glance developers <glance@example.org>
Installed-Size: $(du -sk "$root/usr" "$root/lib" | awk '{ total += $1 } END { print total }')
Depends: $linked$loaded, adduser
Recommends: bubblewrap, libreoffice-writer, libreoffice-calc, libreoffice-impress, libreoffice-draw
Section: graphics
Priority: optional
Homepage: https://example.org/glance
Description: thumbnails and previews for folders of documents
 Glance renders thumbnails of PDF, PNG, JPEG, WebP, GIF, TIFF, HEIC, AVIF,
 SVG and plain-text documents, of office documents (Word, Excel,
 PowerPoint, OpenDocument, RTF; through LibreOffice, kept warm), of videos
 (a frame worth seeing, HDR tone-mapped) and of sound files' covers in
 sandboxed renderer processes,
 keeps them in a sidecar store beside the documents (SQLite, or PostgreSQL
 for many hosts) and fresh as documents are saved, and serves a preview
 listing in a browser and a terminal. The package holds the glance and glance-renderer
 programs, systemd units for glance watch, serve and worker, a desktop
 thumbnailer entry, man pages and shell completions.
CONTROL

cat > "$root/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
# The units run as the system user glance.
set -e
if [ "$1" = configure ] && ! getent passwd glance > /dev/null; then
  adduser --system --group --home /nonexistent --no-create-home --quiet glance
fi
POSTINST
chmod 755 "$root/DEBIAN/postinst"

deb="$out/glance_${version}-1_${arch}.deb"
# DEB_COMPRESSION: dpkg-deb's compression options, xz by default (what make deb ships); make test-deb
# checks the same contents packed with gzip -1, a minute faster to build.
# shellcheck disable=SC2086
dpkg-deb --root-owner-group ${DEB_COMPRESSION:--Zxz} --build "$root" "$deb" > /dev/null
echo "$deb"
