#!/usr/bin/env bash
# run-in-rdma-vm.sh - run one command inside a throw-away QEMU (TCG, no KVM) VM
# that boots Debian 12's own kernel (linux-image-amd64, 6.1.x) with soft-RoCE
# (rdma_rxe) configured, so that REAL libibverbs/librdmacm programs can be run
# on a machine whose own kernel has no RDMA support.
#
# The VM's userland is the HOST's: host /usr and /etc are shared read-only via
# virtio-9p, so any binary built on the host (same Debian 12 glibc, same
# libibverbs) runs unchanged inside the VM.  A host folder (default: $PWD) is
# shared read-write at the SAME absolute path.  The initramfs only holds
# busybox, the 9p/virtio modules and /init, and is built once and cached.
# MPR's verbs test stage (run-verbs-suite.sh, same folder) runs everything in
# one boot of this VM; see README.md here for the design and the pitfalls.
#
# Usage:
#   run-in-rdma-vm.sh [options] [--] COMMAND [ARGS...]
#   run-in-rdma-vm.sh [options] --selftest      # ibv_devinfo, ibv_rc_pingpong,
#                                               # rping, host-built verbs test
#   run-in-rdma-vm.sh --setup-only              # install + build cache, no boot
# Options:
#   -s DIR    host folder shared read-write into the VM at the same path
#             (default: current directory); the command starts in $PWD if $PWD
#             is inside DIR, else in DIR.
#   -t SECS   wall-clock limit for the whole VM run (default 900)
#   -m MB     guest memory (default 1024)
#   -c N      guest vCPUs (default 2; TCG runs one host thread per vCPU)
#   -e N=V    extra environment variable for the command (repeatable)
#   -d rxe|siw|none  software RDMA device to create (default rxe = soft-RoCE,
#             rxe0).  siw (soft-iWARP, siw0) is NOT in Debian 12's kernel: the
#             first use builds siw.ko out of tree (~140 MB download, ~1.5 min).
#   --build-siw  build/cache siw.ko even when not using it now
#   -k        keep the per-run directory (console.log, cmd.sh) and print it
#   -q        quiet: do not print the "[rdma-vm]" progress lines on stderr
#   -x DIR    a second host folder shared read-write at the same path
# Options for a VM that is one host of several (run-in-vm-cluster.sh uses them):
#   --hostname NAME   the guest's host name (default rdma-vm)
#   --ip A.B.C.D      eth0's address, a /24 (default 10.0.2.15)
#   --mac MAC         eth0's MAC address (default qemu's 52:54:00:12:34:56)
#   --netdev SPEC     qemu -netdev backend for eth0 instead of the restricted user-mode NIC,
#                     e.g. dgram,local.type=unix,local.path=A,remote.type=unix,remote.path=B
# Environment:
#   RDMA_VM_CACHE   cache dir for kernel + initramfs (default /var/tmp/rdma-vm)
#   RDMA_VM_NO_APT  =1: never call apt-get (fail if something is missing)
#   RDMA_VM_KVER    kernel package to use, e.g. 6.1.0-57-amd64 (default: the
#                   newest one already cached, else what linux-image-amd64
#                   depends on in the apt archive)
#   RDMA_VM_REFRESH =1: ask apt for the current linux-image-amd64 again
#   RDMA_VM_QEMU_CPU (default max), RDMA_VM_KAPPEND (extra kernel cmdline,
#                   default mitigations=off), RDMA_VM_QEMU_ARGS (extra qemu args)
# The command is run as argv (no shell parsing): use  -- bash -c '...'  for
# pipelines/&&.  Inside the VM it runs as root under bash, with stdin
# /dev/null, in a Debian-6.1 kernel with the host's /usr and /etc, and sees:
#   RDMA_VM=1 RDMA_DEV=rxe0 (siw0 with -d siw) RDMA_NETDEV=eth0 RDMA_IP=10.0.2.15
#   RDMA_GID_INDEX=<index of the IPv4-mapped RoCE v2 GID ::ffff:10.0.2.15,
#                   normally 1; 0 for siw>
#   /dev/infiniband/{uverbs0,rdma_cm}, /dev/shm (tmpfs), /tmp (tmpfs)
# Networking: eth0 = qemu user-mode NIC with restrict=on and no default route:
#   nothing leaves the VM; all RDMA traffic is VM-local (rxe loops it back).
# Exit status: the command's own exit status; 124 if the time limit was hit;
#   125 if the VM or the RDMA setup failed before the command ran (the tail of
#   the guest kernel console is then printed on stderr).
# Output: the command's stdout+stderr are streamed (merged, byte-exact, no CR)
#   to this script's stdout through a virtio-serial port (~20 MB/s); the guest
#   kernel log goes to console.log in the run directory (kept with -k; its
#   tail is printed on stderr on failure).  "[rdma-vm] ..." progress lines and
#   timings go to stderr (-q silences them).
# Cache: kernel (~410 MB extracted), initramfs (~1.4 MB) under $RDMA_VM_CACHE,
#   built on first use (~30 s); later runs boot in ~7-10 s (wall, idle host).
set -euo pipefail

SHARE=$PWD; TIMEOUT=900; MEM=1024; CPUS=2; KEEP=0; QUIET=0; SELFTEST=0; SETUP_ONLY=0
RDEV=rxe; BUILD_SIW=0; SHARE_SET=0
VM_HOSTNAME=rdma-vm; VM_IP=10.0.2.15; VM_MAC=""; NETDEV=""; SHARE2=""
EXTRA_ENV=()
while [ $# -gt 0 ]; do
  case $1 in
    -s) SHARE=$2; SHARE_SET=1; shift 2;;
    -t) TIMEOUT=$2; shift 2;;
    -m) MEM=$2; shift 2;;
    -c) CPUS=$2; shift 2;;
    -e) EXTRA_ENV+=("$2"); shift 2;;
    -k) KEEP=1; shift;;
    -x) SHARE2=$2; shift 2;;
    --hostname) VM_HOSTNAME=$2; shift 2;;
    --ip) VM_IP=$2; shift 2;;
    --mac) VM_MAC=$2; shift 2;;
    --netdev) NETDEV=$2; shift 2;;
    -d) RDEV=$2; shift 2;;
    --build-siw) BUILD_SIW=1; shift;;
    -q) QUIET=1; shift;;
    --selftest) SELFTEST=1; shift;;
    --setup-only) SETUP_ONLY=1; shift;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0;;
    --) shift; break;;
    -*) echo "run-in-rdma-vm: unknown option $1" >&2; exit 2;;
    *) break;;
  esac
done
case $RDEV in rxe|siw|none) ;; *) echo "run-in-rdma-vm: -d must be rxe, siw or none" >&2; exit 2;; esac
case $VM_IP in *[!0-9.]*|'') echo "run-in-rdma-vm: --ip wants an IPv4 address, not $VM_IP" >&2; exit 2;; esac
case $VM_HOSTNAME in *[!A-Za-z0-9-]*|'') echo "run-in-rdma-vm: --hostname wants letters, digits and '-', not $VM_HOSTNAME" >&2; exit 2;; esac
if [ $SELFTEST = 0 ] && [ $SETUP_ONLY = 0 ] && [ $# = 0 ]; then
  echo "usage: $0 [-s DIR] [-t SECS] [-m MB] [-c N] [-e N=V] [-k] [-q] -- COMMAND [ARGS...] | --selftest | --setup-only" >&2
  exit 2
fi

CACHE=${RDMA_VM_CACHE:-/var/tmp/rdma-vm}
log() { [ "$QUIET" = 1 ] || echo "[rdma-vm] $*" >&2; }
die() { echo "[rdma-vm] ERROR: $*" >&2; exit 125; }
[ "$(id -u)" = 0 ] || die "must run as root (apt-get, and qemu's 9p export of /usr,/etc)"

# --------------------------------------------------------------------------
# 1. host packages
# --------------------------------------------------------------------------
# (rdma-core itself is not needed: it only adds udev rules/services and would
#  pull in udev + a systemd upgrade.  busybox-static is only extracted, below,
#  because installing it would remove a dynamic 'busybox' package.)
PKGS="qemu-system-x86 ibverbs-utils ibverbs-providers rdmacm-utils iproute2
      cpio kmod gzip xz-utils binutils"
ensure_packages() {
  local missing=() p ok
  # shellcheck disable=SC2086
  # dpkg-query exits 1 when any package is unknown to dpkg: that is the case we handle here
  ok=$( (dpkg-query -W -f='${Package} ${Status}\n' $PKGS 2>/dev/null || true) | awk '/install ok installed/{print $1}')
  for p in $PKGS; do grep -qx "$p" <<<"$ok" || missing+=("$p"); done
  [ ${#missing[@]} = 0 ] && return 0
  [ "${RDMA_VM_NO_APT:-0}" = 1 ] && die "missing packages: ${missing[*]}"
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null 2>&1 || apt-get update
  apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
}

ensure_busybox() {   # static busybox for the initramfs, from busybox-static
  BUSYBOX=$CACHE/busybox
  [ -x "$BUSYBOX" ] && return 0
  [ "${RDMA_VM_NO_APT:-0}" = 1 ] && die "no $BUSYBOX and RDMA_VM_NO_APT=1"
  local d; d=$(mktemp -d "$CACHE/bb.XXXXXX"); chmod 777 "$d"
  (cd "$d" && apt-get download -qq busybox-static >/dev/null 2>&1) || die "apt-get download busybox-static failed"
  dpkg -x "$d"/busybox-static_*.deb "$d/x"
  cp "$d/x/bin/busybox" "$BUSYBOX.tmp" && mv "$BUSYBOX.tmp" "$BUSYBOX"; rm -rf "$d"
}

# --------------------------------------------------------------------------
# 2. Debian's kernel: apt-get download + dpkg -x (never installed on the host)
# --------------------------------------------------------------------------
ensure_kernel() {
  KVER=${RDMA_VM_KVER:-}
  # sticky: reuse the newest cached kernel (no apt query) unless RDMA_VM_REFRESH=1
  if [ -z "$KVER" ] && [ "${RDMA_VM_REFRESH:-0}" != 1 ]; then
    KVER=$(cd "$CACHE/kernel" 2>/dev/null && ls -1d */.done 2>/dev/null | cut -d/ -f1 | sort -V | tail -1) || true
  fi
  if [ -z "$KVER" ]; then
    KVER=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/.*Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -1) || true
    if [ -z "$KVER" ] && [ "${RDMA_VM_NO_APT:-0}" != 1 ]; then
      apt-get update -qq >/dev/null 2>&1 || true
      KVER=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/.*Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -1) || true
    fi
    if [ -z "$KVER" ]; then   # offline: newest one already in the cache
      KVER=$(ls -1 "$CACHE/kernel" 2>/dev/null | sort -V | tail -1) || true
    fi
    [ -n "$KVER" ] || die "cannot determine the linux-image-amd64 kernel version (apt-get update?)"
  fi
  KDIR=$CACHE/kernel/$KVER
  if [ ! -f "$KDIR/.done" ]; then
    [ "${RDMA_VM_NO_APT:-0}" = 1 ] && die "kernel $KVER not in cache $KDIR"
    log "downloading + extracting linux-image-$KVER"
    rm -rf "$KDIR" "$CACHE/dl"; mkdir -p "$KDIR" "$CACHE/dl"; chmod 777 "$CACHE/dl"
    (cd "$CACHE/dl" && apt-get download -qq "linux-image-$KVER" >/dev/null 2>&1) \
      || die "apt-get download linux-image-$KVER failed"
    dpkg -x "$CACHE"/dl/linux-image-"$KVER"_*.deb "$KDIR/root"
    dpkg-deb -f "$CACHE"/dl/linux-image-"$KVER"_*.deb Version > "$KDIR/version"
    depmod -b "$KDIR/root" "$KVER"        # the .deb ships no modules.dep
    ln -s "root/boot/vmlinuz-$KVER" "$KDIR/vmlinuz"
    # Uncompressed ELF vmlinux: qemu boots it through its PVH entry point, which
    # skips the in-guest xz decompression (2-5 s under TCG).  Fallback: bzImage.
    local off
    off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$KDIR/vmlinuz" | head -1 | cut -d: -f1) || true
    if [ -n "$off" ] && tail -c +$((off + 1)) "$KDIR/vmlinuz" | xz -dcq > "$KDIR/vmlinux" 2>/dev/null; [ -s "$KDIR/vmlinux" ] \
       && readelf -n "$KDIR/vmlinux" 2>/dev/null | grep -q 'Xen.*0x00000012'; then :; else rm -f "$KDIR/vmlinux"; fi
    rm -rf "$CACHE/dl"
    touch "$KDIR/.done"
  fi
  MODDIR=$KDIR/root/lib/modules/$KVER
  KIMG=$KDIR/vmlinuz; [ -s "$KDIR/vmlinux" ] && KIMG=$KDIR/vmlinux
  [ -f "$MODDIR/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko" ] || die "kernel $KVER has no rdma_rxe.ko"
}

# --------------------------------------------------------------------------
# 2b. optional: siw (soft-iWARP).  Debian 12's kernel is built with
#     CONFIG_RDMA_SIW unset, so build siw.ko out of tree from linux-source-6.1
#     against linux-headers-$KVER (both only extracted, not installed) and put
#     it in the cached module tree as updates/siw.ko (unsigned: taints, loads).
# --------------------------------------------------------------------------
ensure_siw() {
  [ -f "$MODDIR/updates/siw.ko" ] && return 0
  [ "${RDMA_VM_NO_APT:-0}" = 1 ] && die "siw.ko not in cache and RDMA_VM_NO_APT=1"
  local ver kb common b
  ver=$(cat "$KDIR/version"); kb=${KVER%%-*}; kb=${kb%.*}      # 6.1.0-57-amd64 -> 6.1
  common=${KVER%-amd64}-common
  PKGS="make gcc-$(sed -n 's/.*gcc-\([0-9]*\) .*/\1/p' "$KDIR/root/boot/config-$KVER" 2>/dev/null | head -1) libelf1 libssl3" \
    ensure_packages
  log "building siw.ko for $KVER (downloads linux-source-$kb, ~140 MB)"
  b=$(mktemp -d "$CACHE/siw-build.XXXXXX"); chmod 777 "$b"
  (cd "$b" && apt-get download -qq "linux-source-$kb=$ver" "linux-headers-$KVER=$ver" \
      "linux-headers-$common=$ver" "linux-kbuild-$kb=$ver" >/dev/null 2>&1) \
    || { rm -rf "$b"; die "apt-get download of linux-source/headers $ver failed"; }
  mkdir "$b/root" "$b/src"
  for d in "$b"/linux-headers-*.deb "$b"/linux-kbuild-*.deb; do dpkg -x "$d" "$b/root"; done
  local H=$b/root/usr/src/linux-headers-$KVER
  sed -i "s|include /usr/src/|include $b/root/usr/src/|" "$H/Makefile"
  dpkg --fsys-tarfile "$b"/linux-source-*.deb | tar -xO "./usr/src/linux-source-$kb.tar.xz" | xz -dc \
    | tar -x -C "$b/src" --strip-components=5 "linux-source-$kb/drivers/infiniband/sw/siw"
  make -s -C "$H" M="$b/src" CONFIG_RDMA_SIW=m modules >"$b/build.log" 2>&1 \
    || { tail -20 "$b/build.log" >&2; die "siw.ko build failed (log: $b/build.log)"; }
  mkdir -p "$MODDIR/updates"; cp "$b/src/siw.ko" "$MODDIR/updates/siw.ko"
  depmod -b "$KDIR/root" "$KVER"
  rm -rf "$b"
}

# --------------------------------------------------------------------------
# 3. initramfs: static busybox + virtio/9p modules + /init (cached by content)
# --------------------------------------------------------------------------
# Modules that must be loaded before the 9p root pieces can be mounted; all
# other modules are modprobe'd inside the VM from the 9p-shared module tree.
BOOT_MODS="virtio_pci 9pnet_virtio 9p"

write_init() {  # the VM's /init, run by busybox sh as PID 1
cat <<'INIT'
#!/bb/busybox sh
# PID 1 of the rdma VM.  Mounts host /usr,/etc (ro) + module tree (ro) +
# control dir + shared dir via 9p, sets up rdma_rxe on eth0, runs /ctl/cmd.sh.
B=/bb/busybox
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/bb
$B mount -t proc proc /proc
$B mount -t sysfs sysfs /sys
$B mount -t devtmpfs devtmpfs /dev
$B mkdir -p /dev/pts /dev/shm
$B mount -t devpts devpts /dev/pts
$B mount -t tmpfs -o mode=1777 tmpfs /dev/shm
$B mount -t tmpfs -o mode=1777 tmpfs /tmp
$B mount -t tmpfs -o mode=755 tmpfs /run
up() { $B cut -d' ' -f1 /proc/uptime; }
say() { echo "[rdma-vm-init $(up)] $*" > /dev/ttyS0; }
abort() {   # setup failure: tell the host (console + /ctl/setup_error) and power off
  say "FATAL: $*"
  [ -d /ctl/. ] && echo "$*" > /ctl/setup_error 2>/dev/null
  echo "[rdma-vm] VM setup failed: $*" > /dev/ttyS1
  $B sync; $B poweroff -f; $B sleep 60
}
say "init start"
for m in $(cat /kmod/order); do $B insmod /kmod/$m.ko || abort "insmod $m"; done
O=trans=virtio,version=9p2000.L,msize=262144
say "modules loaded"
$B mount -t 9p -o $O,ro,cache=loose hostusr /usr || abort "mount 9p hostusr"
$B mount -t 9p -o $O,ro,cache=loose hostetc /etc || abort "mount 9p hostetc"
$B mount -t 9p -o $O,cache=none ctl /ctl || abort "mount 9p ctl"
# /lib must be a real directory (it holds modules/$(uname -r)); mirror /usr/lib.
$B ln -s /usr/lib/* /lib/ 2>/dev/null
[ -L /lib/modules ] && $B rm /lib/modules
say "/lib populated"
$B mkdir -p /lib/modules/$($B uname -r)
$B mount -t 9p -o $O,ro,cache=loose kmod /lib/modules/$($B uname -r) || abort "mount 9p kmod"
. /ctl/env                    # SHARE_DIR WORK_DIR SETUP VM_HOSTNAME VM_IP SHARE2_DIR
$B mkdir -p "$SHARE_DIR"
$B mount -t 9p -o $O,cache=mmap share "$SHARE_DIR" || abort "mount 9p share"
if [ -n "$SHARE2_DIR" ]; then
  $B mkdir -p "$SHARE2_DIR"
  $B mount -t 9p -o $O,cache=none share2 "$SHARE2_DIR" || abort "mount 9p share2"
fi
say "9p mounted"
$B hostname "$VM_HOSTNAME"
# network + software RDMA device
say "modprobe"
modprobe -a virtio_net crc32_generic crc32c_generic ib_uverbs rdma_ucm ib_umad \
  || abort "modprobe virtio_net/ib_uverbs/rdma_ucm failed"
$B ip link set lo up
$B ip link set eth0 up || abort "no eth0"
$B ip addr add "$VM_IP/24" dev eth0
# the IPv4-mapped GID rxe derives from eth0's address: ::ffff:a.b.c.d
set -- $(echo "$VM_IP" | $B tr . ' ')
GIDV=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$1" "$2" "$3" "$4")
DEV=; GIDX=
case "$SETUP" in
rxe)
  modprobe rdma_rxe || abort "modprobe rdma_rxe failed"
  rdma link add rxe0 type rxe netdev eth0 > /dev/ttyS0 2>&1 || abort "rdma link add rxe0 type rxe netdev eth0 failed (see console)"
  DEV=rxe0
  # RoCE v2 GID for ::ffff:$VM_IP (GID 0 is normally the IPv6 link-local one)
  n=0
  while [ $n -lt 100 ] && [ -z "$GIDX" ]; do
    for g in /sys/class/infiniband/rxe0/ports/1/gids/*; do
      i=${g##*/}
      if [ "$($B cat $g 2>/dev/null)" = "$GIDV" ] &&
         [ "$($B cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$i 2>/dev/null)" = "RoCE v2" ]; then
        GIDX=$i; break
      fi
    done
    [ -n "$GIDX" ] || { n=$((n+1)); $B usleep 50000; }
  done
  [ -n "$GIDX" ] || abort "no IPv4 RoCE v2 GID on rxe0";;
siw)   # iWARP: not built into Debian 12's kernel; needs updates/siw.ko (see host script)
  modprobe siw || abort "modprobe siw failed (Debian 12's kernel has CONFIG_RDMA_SIW unset; build it with --build-siw)"
  rdma link add siw0 type siw netdev eth0 > /dev/ttyS0 2>&1 || abort "rdma link add siw0 type siw netdev eth0 failed (see console)"
  DEV=siw0; GIDX=0;;
none) ;;
*) abort "unknown SETUP=$SETUP";;
esac
say "rdma device ${DEV:-none} up, gid index ${GIDX:-none}"
# command output channel: virtio-serial port "out" (fast); fallback ttyS1
OUT=/dev/ttyS1
if modprobe virtio_console 2>/dev/null; then
  n=0
  while [ $n -lt 40 ]; do
    for p in /sys/class/virtio-ports/*; do
      [ "$($B cat $p/name 2>/dev/null)" = out ] && [ -c /dev/${p##*/} ] && OUT=/dev/${p##*/}
    done
    [ $OUT != /dev/ttyS1 ] && break; n=$((n+1)); $B usleep 50000
  done
fi
[ $OUT = /dev/ttyS1 ] && $B stty -F /dev/ttyS1 raw -echo 2>/dev/null
say "command output -> $OUT"
echo "$(up)" > /ctl/t_cmd_start
say "running command"
cd "$WORK_DIR" || cd "$SHARE_DIR"
# the command's stdout+stderr -> $OUT (host stdout); stdin = /dev/null
env HOME=/root USER=root LOGNAME=root TERM=dumb LANG=C.UTF-8 \
    RDMA_VM=1 RDMA_DEV=$DEV RDMA_NETDEV=eth0 RDMA_IP=$VM_IP RDMA_GID_INDEX=$GIDX \
    PATH=$PATH /usr/bin/bash /ctl/cmd.sh < /dev/null > $OUT 2>&1
rc=$?
echo "$(up)" > /ctl/t_cmd_end
echo $rc > /ctl/rc
say "command exit code $rc"
$B sync
$B poweroff -f
$B sleep 60
INIT
}

ensure_initramfs() {
  local sig
  sig=$( { write_init; echo "$KVER $BOOT_MODS / 755"; md5sum < "$BUSYBOX"; } | md5sum | cut -c1-12)
  INITRD=$CACHE/initrd-$KVER-$sig.cpio.gz
  [ -f "$INITRD" ] && return 0
  log "building initramfs $INITRD"
  local R; R=$(mktemp -d "$CACHE/initrd-root.XXXXXX")
  chmod 755 "$R"                           # the guest's /: daemons that drop root traverse it
  mkdir -p "$R"/{bb,kmod,proc,sys,dev,tmp,run,usr,etc,lib,ctl,root,var/tmp,mnt}
  for d in bin sbin lib64 lib32 libx32; do ln -s usr/$d "$R/$d"; done
  ln -s /run "$R/var/run"
  cp "$BUSYBOX" "$R/bb/busybox"
  local m p
  for m in $BOOT_MODS; do modprobe -d "$KDIR/root" -S "$KVER" --show-depends "$m"; done \
    | awk '$1=="insmod"{print $2}' | awk '!seen[$0]++' | while read -r p; do
        cp "$p" "$R/kmod/"; basename "$p" .ko >> "$R/kmod/order"; done
  [ -s "$R/kmod/order" ] || die "module dependency resolution failed"
  write_init > "$R/init"; chmod 755 "$R/init"
  (cd "$R" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) > "$INITRD.tmp"
  rm -f "$CACHE"/initrd-*.cpio.gz          # stale ones (other /init versions)
  mv "$INITRD.tmp" "$INITRD"; rm -rf "$R"
}

mkdir -p "$CACHE"
exec 9> "$CACHE/.lock"; flock 9          # serialise cache creation
[ $SELFTEST = 1 ] && PKGS="$PKGS gcc libibverbs-dev"   # for the host-built test binary
ensure_packages
ensure_busybox
ensure_kernel
if [ $BUILD_SIW = 1 ] || [ "$RDEV" = siw ]; then ensure_siw; fi
ensure_initramfs
flock -u 9
log "kernel $KVER, initramfs $(basename "$INITRD")"
[ $SETUP_ONLY = 1 ] && exit 0

# --------------------------------------------------------------------------
# 4. per-run control dir, command script
# --------------------------------------------------------------------------
RUN=$(mktemp -d /tmp/rdma-vm-run.XXXXXX)
mkdir "$RUN/ctl"
cleanup() { [ "$KEEP" = 1 ] && log "run dir kept: $RUN" || rm -rf "$RUN"; }
trap cleanup EXIT
# --selftest without -s: share a scratch folder instead of $PWD
[ $SELFTEST = 1 ] && [ $SHARE_SET = 0 ] && { SHARE=$RUN/share; mkdir "$SHARE"; }
SHARE=$(cd "$SHARE" && pwd -P)
if [ -n "$SHARE2" ]; then SHARE2=$(cd "$SHARE2" && pwd -P) || die "no folder $SHARE2 (-x)"; fi
unshareable() {
  case $1 in /|/usr|/usr/*|/etc|/etc/*|/proc|/proc/*|/sys|/sys/*|/dev|/dev/*|/tmp|/run|/run/*|/lib|/lib/*|/bin|/bin/*|/sbin|/sbin/*|/lib64|/lib64/*) return 0;; esac
  return 1
}
if unshareable "$SHARE"; then
  [ $SHARE_SET = 1 ] && die "cannot share $SHARE (the VM has its own /, /tmp, /run and the host's /usr,/etc): share a subfolder, e.g. -s /tmp/x"
  log "\$PWD ($SHARE) cannot be shared; sharing an empty scratch folder instead"
  SHARE=$RUN/share; mkdir -p "$SHARE"
fi
[ -n "$SHARE2" ] && unshareable "$SHARE2" && die "cannot share $SHARE2 (-x): share a subfolder"
WORK=$(pwd -P); case $WORK/ in "$SHARE"/*) ;; *) WORK=$SHARE;; esac

if [ $SELFTEST = 1 ]; then
  # a tiny verbs program built HERE, on the host, run inside the VM via the share
  if command -v gcc >/dev/null && [ -f /usr/include/infiniband/verbs.h ]; then
    mkdir -p "$SHARE/.rdma-vm-selftest"
    cat > "$SHARE/.rdma-vm-selftest/q.c" <<'EOF'
#include <infiniband/verbs.h>
#include <stdio.h>
int main(void) {
  int n; struct ibv_device **l = ibv_get_device_list(&n);
  if (!l || !n) { perror("ibv_get_device_list"); return 1; }
  struct ibv_context *c = ibv_open_device(l[0]); struct ibv_port_attr pa;
  if (!c || ibv_query_port(c, 1, &pa)) { perror("open/query"); return 1; }
  printf("host-built binary: %s port1 state=%s mtu=%d\n", ibv_get_device_name(l[0]),
         ibv_port_state_str(pa.state), 128 << pa.active_mtu);
  return pa.state == IBV_PORT_ACTIVE ? 0 : 1;
}
EOF
    gcc -O2 -o "$SHARE/.rdma-vm-selftest/q" "$SHARE/.rdma-vm-selftest/q.c" -libverbs
    HOSTBIN="$SHARE/.rdma-vm-selftest/q"
  else
    HOSTBIN=""; log "no gcc/libibverbs-dev on the host: skipping the host-built binary check"
  fi
  cat > "$RUN/ctl/cmd.sh" <<EOF
set -u -o pipefail; fail=0
step() { echo; echo "=== \$*"; }
pair() {   # pair CMD...: run CMD as server, then CMD \$RDMA_IP as its client
  "\$@" > /tmp/server.log 2>&1 & local s=\$!; sleep 1
  "\$@" \$RDMA_IP || fail=1
  wait \$s || { fail=1; echo "server failed:"; cat /tmp/server.log; }
}
step "uname / rdma link / ibv_devices"
uname -r; rdma link; ibv_devices
step "ibv_devinfo -v (gid index \$RDMA_GID_INDEX)"
ibv_devinfo -v | grep -E 'hca_id|transport|state|mtu|GID' || fail=1
if [ "\$RDMA_DEV" = rxe0 ]; then   # raw-verbs tests (IB/RoCE addressing; not iWARP)
  step "ibv_rc_pingpong (4 KiB x 1000)"
  pair ibv_rc_pingpong -d \$RDMA_DEV -g \$RDMA_GID_INDEX
  step "ibv_rc_pingpong (64 KiB x 500)"
  pair ibv_rc_pingpong -d \$RDMA_DEV -g \$RDMA_GID_INDEX -s 65536 -n 500
  step "ibv_ud_pingpong (2 KiB x 1000)"
  pair ibv_ud_pingpong -d \$RDMA_DEV -g \$RDMA_GID_INDEX
fi
step "rping (librdmacm) x 10"
rping -s -a \$RDMA_IP -C 10 > /tmp/server.log 2>&1 & s=\$!; sleep 1
rping -c -a \$RDMA_IP -C 10 -v | tail -2 || fail=1; wait \$s || fail=1
if [ -n "$HOSTBIN" ]; then step "host-built binary via 9p: $HOSTBIN"; "$HOSTBIN" || fail=1; fi
echo; [ \$fail = 0 ] && echo "selftest: PASS" || echo "selftest: FAIL"
exit \$fail
EOF
else
  { echo 'set +e'; printf '%q ' "$@"; echo; } > "$RUN/ctl/cmd.sh"
fi
{
  printf 'SHARE_DIR=%q\nWORK_DIR=%q\nSETUP=%q\n' "$SHARE" "$WORK" "$RDEV"
  printf 'VM_HOSTNAME=%q\nVM_IP=%q\nSHARE2_DIR=%q\n' "$VM_HOSTNAME" "$VM_IP" "$SHARE2"
  for kv in "${EXTRA_ENV[@]+"${EXTRA_ENV[@]}"}"; do printf 'export %q\n' "$kv"; done
} > "$RUN/ctl/env"

# --------------------------------------------------------------------------
# 5. boot.  ttyS0 = guest kernel console -> console.log; virtio-serial port
#    "out" = command output -> $RUN/out.log, streamed to our stdout by tail -f
#    (a stdio chardev sees EOF on stdin and then blocks the port; a file
#    chardev on /dev/fd/1 has its own file offset and clobbers the caller's
#    output when stdout is a regular file); ttyS1 = fallback channel.
#    User-mode NIC with restrict=on: no traffic leaves the VM.
# --------------------------------------------------------------------------
V="security_model=none,multidevs=remap"
QEMU=(qemu-system-x86_64 -machine q35 -accel tcg,thread=multi -cpu "${RDMA_VM_QEMU_CPU:-max}"
  -m "$MEM" -smp "$CPUS"
  -nodefaults -no-user-config -display none -no-reboot
  -kernel "$KIMG" -initrd "$INITRD"
  -append "console=ttyS0 panic=-1 ${RDMA_VM_KAPPEND:-mitigations=off}"
  -serial "file:$RUN/console.log" -serial "file:$RUN/ttyS1.log"
  -chardev "file,id=cout,path=$RUN/out.log,append=on"
  -device virtio-serial-pci -device virtserialport,chardev=cout,name=out
  -netdev "${NETDEV:-user,restrict=on},id=n0" -device "virtio-net-pci,netdev=n0,romfile=${VM_MAC:+,mac=$VM_MAC}"
  -virtfs "local,path=/usr,mount_tag=hostusr,$V,readonly=on"
  -virtfs "local,path=/etc,mount_tag=hostetc,$V,readonly=on"
  -virtfs "local,path=$MODDIR,mount_tag=kmod,$V,readonly=on"
  -virtfs "local,path=$RUN/ctl,mount_tag=ctl,$V"
  -virtfs "local,path=$SHARE,mount_tag=share,$V")
[ -n "$SHARE2" ] && QEMU+=(-virtfs "local,path=$SHARE2,mount_tag=share2,$V")
# shellcheck disable=SC2206
QEMU+=(${RDMA_VM_QEMU_ARGS:-})
log "booting (share $SHARE, timeout ${TIMEOUT}s)"
T0=$(date +%s.%N)
: > "$RUN/out.log"
timeout --kill-after=10 "$TIMEOUT" "${QEMU[@]}" < /dev/null & QPID=$!
INTR=0; trap 'INTR=1; kill $QPID 2>/dev/null' INT TERM HUP
# stream the command's output to OUR stdout (same open file description, so
# it also works when stdout is a regular file being appended by the caller)
tail -s 0.2 -c +1 -f --pid=$QPID "$RUN/out.log" & TPID=$!
set +e
wait $QPID; QRC=$?
wait $TPID
set -e
trap - INT TERM HUP
T1=$(date +%s.%N)
WALL=$(awk -v a="$T0" -v b="$T1" 'BEGIN{printf "%.1f", b-a}')
# output that went to the fallback channel (ttyS1): no virtio-serial port
[ -s "$RUN/ttyS1.log" ] && cat "$RUN/ttyS1.log"

if [ -f "$RUN/ctl/rc" ]; then
  RC=$(cat "$RUN/ctl/rc")
  log "command exit code $RC; wall ${WALL}s (boot+setup $(cat "$RUN/ctl/t_cmd_start")s, command $(awk -v a="$(cat "$RUN/ctl/t_cmd_start")" -v b="$(cat "$RUN/ctl/t_cmd_end")" 'BEGIN{printf "%.1f", b-a}')s guest time)"
  exit "$RC"
fi
if [ $INTR = 1 ]; then
  echo "[rdma-vm] interrupted; VM killed" >&2; exit 130
elif [ $QRC = 124 ] || [ $QRC = 137 ]; then
  echo "[rdma-vm] TIMEOUT after ${TIMEOUT}s (qemu rc $QRC); guest console tail:" >&2
  RC=124
else
  echo "[rdma-vm] VM ended without a command exit code (qemu rc $QRC, wall ${WALL}s)" >&2
  [ -f "$RUN/ctl/setup_error" ] && echo "[rdma-vm] VM setup error: $(cat "$RUN/ctl/setup_error")" >&2
  RC=125
fi
tail -n 40 "$RUN/console.log" 2>/dev/null | tr -d '\r' | sed 's/^/[guest console] /' >&2
exit $RC
