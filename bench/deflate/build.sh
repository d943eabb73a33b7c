#!/bin/sh
# Builds bench/deflate/compare: Glance's PNG writer and deflate encoder compiled straight from
# Sources/Renderer/CPNG (with -O2, as Package.swift gives the CPNG target) into one program with the
# benchmark, linked against the Debian libdeflate, libspng, libpng and zlib.
# Needs: apt-get install libdeflate-dev libspng-dev libpng-dev zlib1g-dev
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cc=${CC:-clang}
obj=$(mktemp -d)
trap 'rm -rf "$obj"' EXIT
inc="-I$root/Sources/Renderer/CPNG/include -I$root/Sources/Renderer/CPNG -I$root/Sources/System/CProcessorFeatures/include"
for f in "$root/Sources/Renderer/CPNG/glance_deflate.c" "$root/Sources/Renderer/CPNG/glance_png_writer.c" \
         "$root/Sources/System/CProcessorFeatures/glance_processor_features.c"; do
    $cc -O2 $inc -c "$f" -o "$obj/$(basename "$f" .c).o"
done
$cc -O2 -Wall -Wextra $inc $(pkg-config --cflags libpng spng) -c "$here/compare.c" -o "$obj/compare.o"
$cc -O2 -o "$here/compare" "$obj"/*.o -ldeflate -lspng $(pkg-config --libs libpng) -lz
echo "built $here/compare ($($cc --version | head -1))"
