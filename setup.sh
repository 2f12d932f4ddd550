#!/usr/bin/env bash
# MPR setup: install the Debian packages MPR needs, build, install into ./_install and run the
# hello example under `mprun -n 4`. Run as root on Debian 12 (apt-get is skipped when every
# package is already present).
set -euo pipefail
cd "$(dirname "$0")"
top=$PWD
prefix=${PREFIX:-$top/_install}

# shellcheck source=test/packages.sh
. "$top/test/packages.sh"
mpr_install_packages

[ -x configure ] || autoreconf -fi
mkdir -p _build-setup
cd _build-setup
[ -f Makefile ] || ../configure --prefix="$prefix"
make -j"$(nproc)"
make install

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$prefix/bin/mpicc" -o "$work/hello" "$prefix/share/mpr/examples/hello.c"
"$prefix/bin/mprun" -n 4 "$work/hello"
