#!/bin/bash
# Checks that existing build systems find an installed MPR as their MPI: the build is installed
# into a temporary staging directory (make install DESTDIR=...), and with only its bin directory
# first on PATH a CMake project (find_package(MPI), MPI::MPI_C and MPI::MPI_CXX), an Autotools
# project (configure.ac looking for mpicc, AC_CHECK_FUNCS([MPI_Init])) and Meson projects
# (dependency('mpi') through PATH, through a native file, and for C++) configure, build, link MPR's
# libmpi (not Open MPI's or MPICH's, installed too) and run under the staged mprun -n 2; the
# pkg-config names mpi, mpi-c and mpi-cxx give MPR's flags; the wrappers take their compiler from
# -cc=/-cxx=, MPR_CC, OMPI_CC, MPICH_CC in that order (a fake compiler records who ran);
# mpic++ and mpiCC compile C++; the man pages render without warnings; uninstall removes it all.
# Prints one line per check, "PASS name" or "FAIL name: why" ("SKIP name: why" when a tool is
# missing), and exits non-zero if any check failed; check names hold no ':', so relay_counted in
# test/run-tests.sh names a failure as it names the pass. Reporting and time limits come from
# test/lib/harness.sh. Needs no network: cmake, meson, ninja-build, man-db and groff-base are
# Debian packages (test/packages.sh).
#
# Usage: build-discovery.sh [BUILDDIR]   (default: $MPR_BUILDDIR, else the current directory).
# Logs: BUILDDIR/test-logs/build-discovery/, one per check.
set -u

builddir=$(cd "${1:-${MPR_BUILDDIR:-$PWD}}" && pwd)
srcroot=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=test/lib/harness.sh
. "$srcroot/test/lib/harness.sh"

# Nothing from the caller's environment may choose the compiler, the MPI or the allocation.
unset MPR_CC MPR_CXX OMPI_CC OMPI_CXX MPICH_CC MPICH_CXX MPICC MPICXX MPI_HOME MPI_ROOT \
    PKG_CONFIG_PATH PKG_CONFIG_LIBDIR CMAKE_PREFIX_PATH
# shellcheck disable=SC2046
unset $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p')

T=$(mktemp -d /tmp/mpr-build-discovery.XXXXXX)
trap 'rm -rf "$T"' EXIT
logs=$builddir/test-logs/build-discovery
rm -rf "$logs"
mkdir -p "$logs"
lg() { printf '%s/%s.log' "$logs" "$(printf '%s' "$1" | tr -c 'A-Za-z0-9._=-' '_')"; }

# ---- install into the staging directory ---------------------------------------------------------
# mkvar VAR: a variable of the build's Makefile, fully expanded (prefix, libdir, ...).
# shellcheck disable=SC2016
printf 'mpr-print-%%:\n\t@echo "$($*)"\n' >"$T/print.mk"
mkvar() { make -s --no-print-directory -C "$builddir" -f Makefile -f "$T/print.mk" "mpr-print-$1"; }
prefix=$(mkvar prefix)
bindir=$(mkvar bindir)
libdir=$(mkvar libdir)
includedir=$(mkvar includedir)
mandir=$(mkvar mandir)
pkgconfigdir=$(mkvar pkgconfigdir)
if [ -z "$prefix" ] || [ -z "$libdir" ]; then
    echo "FAIL setup: cannot read prefix and libdir from $builddir/Makefile"
    exit 1
fi
root=$T/root
B=$root$bindir L=$root$libdir I=$root$includedir

log=$(lg install)
timed_run 900 make -C "$builddir" install DESTDIR="$root" >"$log" 2>&1
missing=""
for f in mprun mpirun mpiexec mpicc mpicxx mpic++ mpiCC; do [ -x "$B/$f" ] || missing="$missing $f"; done
for f in mpi.pc mpi-c.pc mpi-cxx.pc mpr.pc; do [ -f "$root$pkgconfigdir/$f" ] || missing="$missing $f"; done
[ -e "$L/libmpi.so" ] || missing="$missing libmpi.so"
if [ "$rc" -ne 0 ]; then
    fail install "make install DESTDIR=... exited $rc" "$log"
    summary
    exit 1
elif [ -n "$missing" ]; then
    fail install "not installed:$missing" "$log"
else
    pass install "$took s, prefix $prefix"
fi
for l in mpic++ mpiCC; do
    if [ "$(readlink "$B/$l")" != mpicxx ]; then
        fail "install/$l is a link to mpicxx" "$B/$l -> $(readlink "$B/$l" || echo 'not a link')"
    else
        pass "install/$l is a link to mpicxx"
    fi
done

export PATH=$B:$PATH
cd "$T" || exit 1

# ---- sources of the little projects -------------------------------------------------------------
mkdir -p "$T/src"
cat >"$T/src/hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, len;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_library_version(lib, &len);
  printf("rank %d of %d: %s\n", rank, size, lib);
  MPI_Finalize();
  return 0;
}
EOF
cat >"$T/src/hello.cc" <<'EOF'
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, len = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<char> lib(MPI_MAX_LIBRARY_VERSION_STRING);
  MPI_Get_library_version(lib.data(), &len);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  std::string line = "rank " + std::to_string(rank) + " of " + std::to_string(size) + ": " +
                     lib.data() + " (sum " + std::to_string(sum) + ")";
  std::printf("%s\n", line.c_str());
  MPI_Finalize();
  return 0;
}
EOF

# ---- helpers ------------------------------------------------------------------------------------
# linked_to_mpr BIN: true when BIN loads libmpi from the staged libdir; else sets why.
linked_to_mpr() {
    local lib
    lib=$(ldd "$1" 2>/dev/null | awk '$1 ~ /^libmpi\.so/ { print $3; exit }')
    case $(readlink -f "$lib" 2>/dev/null) in
        "$(readlink -f "$L")"/*) return 0 ;;
    esac
    why="$(basename "$1") loads ${lib:-no libmpi.so} (ldd), not $L/libmpi.so"
    return 1
}
# runs_under_mprun BIN LOG: BIN runs under the staged mprun -n 2 and both ranks say they are
# MPR's; else sets why.
runs_under_mprun() {
    timed_run 60 "$B/mprun" -n 2 "$1" </dev/null >"$2" 2>&1
    if [ "$rc" -ne 0 ]; then
        why="mprun -n 2 $(basename "$1") exited $rc"
        return 1
    fi
    if [ "$(grep -c '^rank [01] of 2: MPR ' "$2")" -ne 2 ]; then
        why="expected 'rank 0 of 2: MPR ...' and 'rank 1 of 2: MPR ...'"
        return 1
    fi
    return 0
}
# link_and_run NAME BIN LOG: the checks NAME: linked to MPR's libmpi, runs under mprun -n 2.
link_and_run() {
    local name=$1 bin=$2 log=$3
    if [ ! -x "$bin" ]; then
        fail "$name/built" "no $bin" "$log"
        return
    fi
    if linked_to_mpr "$bin"; then pass "$name/linked to MPR's libmpi"
    else fail "$name/linked to MPR's libmpi" "$why"; fi
    if runs_under_mprun "$bin" "$log.run"; then pass "$name/runs under mprun -n 2" "$took s"
    else fail "$name/runs under mprun -n 2" "$why" "$log.run"; fi
}

# ---- the wrappers -------------------------------------------------------------------------------
name="wrappers/the staged ones are first on PATH and use the staged include and lib dirs"
got="$(command -v mpicc) $(mpicc --showme:incdirs) $(mpicxx --showme:libdirs)"
if [ "$got" = "$B/mpicc $I $L" ]; then pass "$name"
else fail "$name" "got '$got', expected '$B/mpicc $I $L'"; fi

name="wrappers/MPICH-style -show, -compile_info, -link_info"
show=$(mpicc -show -c x.c)
cinfo=$(mpicc -compile_info x.c)
linfo=$(mpicc -link_info x.c)
if [ "$show" != "cc -c x.c -I$I" ]; then fail "$name" "-show -c x.c printed '$show'"
elif [ "$cinfo" != "cc x.c -I$I" ]; then fail "$name" "-compile_info x.c printed '$cinfo'"
elif [ "$linfo" != "cc x.c -I$I -L$L -Wl,-rpath,$L -lmpi" ]; then
    fail "$name" "-link_info x.c printed '$linfo'"
else pass "$name"; fi

# Fake compilers: each appends "its-name args..." to $T/fake.log.
mkdir -p "$T/fake"
for f in opt mpr ompi mpich; do
    printf '#!/bin/sh\necho "fake-%s $*" >>"%s"\n' "$f" "$T/fake.log" >"$T/fake/fake-$f"
    chmod +x "$T/fake/fake-$f"
done
# compiled_by EXPECTED WRAPPER [VAR=value...] -- [wrapper args...]: runs WRAPPER -c x.c through
# env and checks that fake-EXPECTED alone ran, with our -I and without any -cc=/-cxx=.
compiled_by() {
    local want=$1 wrapper=$2 line
    shift 2
    local -a vars=()
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    : >"$T/fake.log"
    env "${vars[@]}" "$wrapper" "$@" -c x.c >"$T/wrapper.out" 2>&1
    line=$(cat "$T/fake.log")
    case $line in
        *$'\n'*) why="several compilers ran: $line"; return 1 ;;
        "fake-$want -c x.c -I$I") return 0 ;;
        "") why="no fake compiler ran ($(head -c 200 "$T/wrapper.out"))"; return 1 ;;
        *) why="ran '$line', expected 'fake-$want -c x.c -I$I'"; return 1 ;;
    esac
}
for sfx in CC CXX; do
    # The variables' suffix: MPR_CC, OMPI_CC, MPICH_CC; MPR_CXX, OMPI_CXX, MPICH_CXX.
    if [ $sfx = CC ]; then w=mpicc opt=-cc want=cc; else w=mpicxx opt=-cxx want=c++; fi
    F=$T/fake
    name="wrappers/$w with no variable runs $want"
    if [ "$($w --showme:command)" = "$want" ]; then pass "$name"
    else fail "$name" "--showme:command printed '$($w --showme:command)'"; fi
    name="wrappers/$w takes MPICH_$sfx"
    if compiled_by mpich $w "MPICH_$sfx=$F/fake-mpich" --; then pass "$name"; else fail "$name" "$why"; fi
    name="wrappers/$w takes OMPI_$sfx over MPICH_$sfx"
    if compiled_by ompi $w "MPICH_$sfx=$F/fake-mpich" "OMPI_$sfx=$F/fake-ompi" --; then
        pass "$name"; else fail "$name" "$why"; fi
    name="wrappers/$w takes MPR_$sfx over OMPI_$sfx"
    if compiled_by mpr $w "MPICH_$sfx=$F/fake-mpich" "OMPI_$sfx=$F/fake-ompi" \
        "MPR_$sfx=$F/fake-mpr" --; then pass "$name"; else fail "$name" "$why"; fi
    name="wrappers/$w takes $opt= over MPR_$sfx and does not pass it on"
    if compiled_by opt $w "MPICH_$sfx=$F/fake-mpich" "OMPI_$sfx=$F/fake-ompi" \
        "MPR_$sfx=$F/fake-mpr" -- "$opt=$F/fake-opt"; then
        pass "$name"; else fail "$name" "$why"; fi
    name="wrappers/$w -show names the $opt= compiler"
    got=$(MPR_CC=x MPR_CXX=x $w "$opt=$F/fake-opt" -show -c x.c)
    if [ "$got" = "$F/fake-opt -c x.c -I$I" ]; then pass "$name"; else fail "$name" "printed '$got'"; fi
done

for w in mpic++ mpiCC; do
    name="wrappers/$w compiles and links C++"
    log=$(lg "$name")
    if "$w" -O2 -o "$T/hello-$w" "$T/src/hello.cc" >"$log" 2>&1; then
        pass "$name"
        link_and_run "wrappers/$w program" "$T/hello-$w" "$log"
    else
        fail "$name" "$w -o hello hello.cc failed" "$log"
    fi
done

# ---- pkg-config ---------------------------------------------------------------------------------
if command -v pkg-config >/dev/null; then
    want_libs="-L$libdir -Wl,-rpath,$libdir -lmpi"
    for m in mpi mpi-c mpi-cxx; do
        name="pkg-config/--cflags --libs $m are MPR's"
        got=$(PKG_CONFIG_PATH=$root$pkgconfigdir pkg-config --cflags --libs "$m" 2>&1)
        got=" $(tr -s ' \n' '  ' <<<"$got") " # one line, single spaces
        # pkg-config leaves out -I/usr/include, a directory the compiler searches anyway.
        want_cflags=" -I$includedir "
        [ "$includedir" = /usr/include ] && want_cflags=" "
        if [[ $got != *" $want_libs "* ]]; then fail "$name" "got '$got', expected $want_libs"
        elif [[ $got != *"$want_cflags"* ]]; then fail "$name" "got '$got', no -I$includedir"
        else pass "$name"; fi
    done
    name="pkg-config/--define-prefix flags build a program against the staged MPR"
    log=$(lg "$name")
    # shellcheck disable=SC2046
    if cc -o "$T/hello-pc" "$T/src/hello.c" \
        $(PKG_CONFIG_PATH=$root$pkgconfigdir pkg-config --define-prefix --cflags --libs mpi) \
        >"$log" 2>&1; then
        if linked_to_mpr "$T/hello-pc"; then pass "$name"; else fail "$name" "$why"; fi
    else
        fail "$name" "cc \$(pkg-config --define-prefix --cflags --libs mpi) failed" "$log"
    fi
else
    skip pkg-config "pkg-config not installed"
fi

# ---- CMake --------------------------------------------------------------------------------------
if command -v cmake >/dev/null; then
    mkdir -p "$T/cmake"
    cp "$T/src/hello.c" "$T/src/hello.cc" "$T/cmake/"
    cat >"$T/cmake/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.10)
project(discovery C CXX)
find_package(MPI REQUIRED COMPONENTS C CXX)
add_executable(hello_c hello.c)
target_link_libraries(hello_c MPI::MPI_C)
add_executable(hello_cxx hello.cc)
target_link_libraries(hello_cxx MPI::MPI_CXX)
EOF
    name="cmake/find_package(MPI) configures with the staged wrappers and mpiexec"
    log=$(lg cmake)
    timed_run 180 cmake -S "$T/cmake" -B "$T/cmake/build" >"$log" 2>&1
    cache=$T/cmake/build/CMakeCache.txt
    cvar() { sed -n "s/^$1:[A-Z]*=//p" "$cache" 2>/dev/null; }
    if [ "$rc" -ne 0 ]; then
        fail "$name" "cmake exited $rc" "$log"
    elif [ "$(cvar MPI_C_COMPILER)" != "$B/mpicc" ]; then
        fail "$name" "MPI_C_COMPILER is '$(cvar MPI_C_COMPILER)'" "$log"
    elif [ "$(readlink -f "$(cvar MPI_CXX_COMPILER)")" != "$(readlink -f "$B/mpicxx")" ]; then
        fail "$name" "MPI_CXX_COMPILER is '$(cvar MPI_CXX_COMPILER)'" "$log"
    elif [ "$(cvar MPIEXEC_EXECUTABLE)" != "$B/mpiexec" ]; then
        fail "$name" "MPIEXEC_EXECUTABLE is '$(cvar MPIEXEC_EXECUTABLE)'" "$log"
    else
        pass "$name" "$took s"
        name="cmake/builds targets linked with MPI_C and MPI_CXX"
        timed_run 300 cmake --build "$T/cmake/build" >>"$log" 2>&1
        if [ "$rc" -ne 0 ]; then
            fail "$name" "cmake --build exited $rc" "$log"
        else
            pass "$name" "$took s"
            link_and_run "cmake/C program (MPI_C)" "$T/cmake/build/hello_c" "$log"
            link_and_run "cmake/C++ program (MPI_CXX)" "$T/cmake/build/hello_cxx" "$log.cxx"
        fi
    fi
else
    skip cmake "cmake not installed (apt-get install cmake)"
fi

# ---- Autotools ----------------------------------------------------------------------------------
if command -v autoreconf >/dev/null && command -v automake >/dev/null; then
    mkdir -p "$T/autotools"
    cp "$T/src/hello.c" "$T/autotools/"
    cat >"$T/autotools/configure.ac" <<'EOF'
AC_INIT([discovery], [1.0])
AM_INIT_AUTOMAKE([foreign])
dnl The usual way to build with an MPI: find its compiler wrapper and make it the C compiler.
AC_ARG_VAR([MPICC], [MPI C compiler wrapper])
AC_CHECK_PROGS([MPICC], [mpicc mpcc hcc cmpicc])
AS_IF([test -z "$MPICC"], [AC_MSG_ERROR([no MPI C compiler wrapper on PATH])])
CC=$MPICC
AC_PROG_CC
AC_CHECK_HEADERS([mpi.h], [], [AC_MSG_ERROR([mpi.h not found with $CC])])
AC_CHECK_FUNCS([MPI_Init], [], [AC_MSG_ERROR([MPI_Init does not link with $CC])])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
EOF
    printf 'bin_PROGRAMS = hello\nhello_SOURCES = hello.c\n' >"$T/autotools/Makefile.am"
    name="autotools/configure finds mpicc, mpi.h and MPI_Init"
    log=$(lg autotools)
    ( cd "$T/autotools" && timeout 300 autoreconf -fi && timeout 300 ./configure ) >"$log" 2>&1
    arc=$?
    if [ "$arc" -ne 0 ]; then
        fail "$name" "autoreconf or configure exited $arc" "$log"
    elif ! grep -q '^ac_cv_func_MPI_Init=yes' "$T/autotools/config.log"; then
        fail "$name" "config.log has no ac_cv_func_MPI_Init=yes" "$log"
    else
        pass "$name"
        name="autotools/make builds"
        if timeout 300 make -C "$T/autotools" >>"$log" 2>&1; then
            pass "$name"
            link_and_run "autotools/program" "$T/autotools/hello" "$log"
        else
            fail "$name" "make failed" "$log"
        fi
    fi
else
    skip autotools "autoconf/automake not installed"
fi

# ---- Meson --------------------------------------------------------------------------------------
# meson_project NAME DIR LANG METHOD TOOL [meson setup options...]: a project with
# dependency('mpi', language: LANG[, method: METHOD]) set up (Meson must report the wrapper TOOL
# as what it found), built with ninja, linked and run.
meson_project() {
    local name=$1 dir=$2 lang=$3 method=$4 tool=$5
    shift 5
    mkdir -p "$dir"
    local src=hello.c
    [ "$lang" = cpp ] && src=hello.cc
    cp "$T/src/$src" "$dir/"
    {
        echo "project('discovery', '$lang')"
        if [ "$method" = - ]; then echo "mpi = dependency('mpi', language: '$lang')"
        else echo "mpi = dependency('mpi', language: '$lang', method: '$method')"; fi
        echo "executable('hello', '$src', dependencies: mpi)"
    } >"$dir/meson.build"
    local log; log=$(lg "$name")
    (cd "$dir" && timed_run 180 meson setup "$@" build . && exit "$rc") >"$log" 2>&1
    rc=$?
    local found
    found=$(sed -n 's/^.* found: YES (\(.*\)) .*$/\1/p' "$log" | head -n 1)
    if [ "$rc" -ne 0 ]; then
        fail "$name/dependency('mpi') finds $(basename "$tool")" "meson setup exited $rc" "$log"
        return
    elif ! grep -q "^Run-time dependency MPI for $lang found: YES" "$log"; then
        fail "$name/dependency('mpi') finds $(basename "$tool")" \
            "no 'Run-time dependency MPI for $lang found: YES' line" "$log"
        return
    elif [ "$found" != "$tool" ]; then
        fail "$name/dependency('mpi') finds $(basename "$tool")" \
            "Meson took '$found', not $tool" "$log"
        return
    fi
    pass "$name/dependency('mpi') finds $(basename "$tool")"
    timed_run 300 ninja -C "$dir/build" >>"$log" 2>&1
    if [ "$rc" -ne 0 ]; then
        fail "$name/builds" "ninja exited $rc" "$log"
        return
    fi
    pass "$name/builds"
    link_and_run "$name/program" "$dir/build/hello" "$log"
}
if command -v meson >/dev/null && command -v ninja >/dev/null; then
    # Meson 1.0 asks pkg-config for Open MPI's ompi-c before it runs any wrapper, so where Open
    # MPI's development files are installed the automatic method finds Open MPI whatever PATH
    # says; there the C projects use method: 'config-tool', as mpicc(1) tells users to.
    cmethod=- cnote=""
    if command -v pkg-config >/dev/null && pkg-config --exists ompi-c 2>/dev/null; then
        cmethod=config-tool cnote=", method config-tool (Open MPI's ompi-c.pc installed)"
    fi
    meson_project "meson/C, mpicc first on PATH$cnote" "$T/meson-path" c "$cmethod" "$B/mpicc"
    # A native file names the wrapper, and PATH does not have the staged bin directory at all
    # (its mpicc is Open MPI's or MPICH's, if any). MPICC alone would not do: Meson takes the
    # highest version among $MPICC and the mpicc on PATH.
    printf "[binaries]\nmpicc = '%s'\n" "$B/mpicc" >"$T/native.ini"
    PATH=${PATH#"$B":} meson_project "meson/C, native file [binaries] mpicc$cnote" \
        "$T/meson-native" c "$cmethod" "$B/mpicc" --native-file "$T/native.ini"
    meson_project "meson/C++, method config-tool, mpic++ first on PATH" "$T/meson-cxx" cpp \
        config-tool "$B/mpic++"
else
    skip meson "meson or ninja not installed (apt-get install meson ninja-build)"
fi

# ---- man pages ----------------------------------------------------------------------------------
if command -v man >/dev/null && command -v groff >/dev/null; then
    for page in "1 mprun" "1 mpirun" "1 mpiexec" "1 mpicc" "1 mpicxx" "1 mpic++" "1 mpiCC" "7 mpr"; do
        read -r sect pg <<<"$page"
        name="man/man -M <prefix>/share/man $sect $pg renders"
        log=$(lg "$name")
        MANWIDTH=80 man --warnings -M "$root$mandir" "$sect" "$pg" >"$log" 2>"$log.err"
        mrc=$?
        case $pg in mpirun | mpiexec) title=MPRUN ;; mpicxx | mpic++ | mpiCC) title=MPICC ;;
            *) title=$(echo "$pg" | tr '[:lower:]' '[:upper:]') ;; esac
        if [ "$mrc" -ne 0 ]; then fail "$name" "man exited $mrc: $(head -c 200 "$log.err")"
        elif [ -s "$log.err" ]; then fail "$name" "warnings: $(head -c 200 "$log.err")"
        elif ! head -n 1 "$log" | grep -q "^$title($sect)"; then
            fail "$name" "first line is '$(head -n 1 "$log")', expected $title($sect)"
        elif [ "$(wc -l <"$log")" -lt 20 ]; then fail "$name" "only $(wc -l <"$log") lines"
        else pass "$name"; fi
    done
else
    skip man "man or groff not installed (apt-get install man-db groff-base)"
fi

# ---- uninstall ----------------------------------------------------------------------------------
name="uninstall/make uninstall DESTDIR=... leaves no file behind"
log=$(lg uninstall)
timed_run 300 make -C "$builddir" uninstall DESTDIR="$root" >"$log" 2>&1
left=$(find "$root" ! -type d | head -n 5)
if [ "$rc" -ne 0 ]; then fail "$name" "make uninstall exited $rc" "$log"
elif [ -n "$left" ]; then fail "$name" "left: ${left//$'\n'/ }"
else pass "$name"; fi

summary
