# The Debian packages MPR builds and tests with; sourced by setup.sh and test/run-tests.sh.
# cmake, meson, ninja-build, man-db and groff-base: the projects and man pages
# test/launcher/build-discovery.sh builds and renders against an installed MPR.
MPR_PACKAGES="build-essential autoconf automake libtool pkg-config libpmix-dev libhwloc-dev
  libibverbs-dev ibverbs-providers catch2 cmake meson ninja-build man-db groff-base"

mpr_install_packages() {
  local missing="" p
  for p in $MPR_PACKAGES "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  echo "installing Debian packages:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  # shellcheck disable=SC2086
  apt-get install -y -q --no-install-recommends $missing
}
