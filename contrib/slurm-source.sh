#!/bin/bash
# Fetch the Debian source of the installed Slurm (slurm-wlm) and configure it
# once, so that its internal headers (config.h, slurm/slurm.h,
# src/common/*.h) can be used to build a Slurm plugin (jobcomp/attrib) out of
# tree.
#
# Usage: contrib/slurm-source.sh [DIR]     (default: build/slurm-src)
#
# Idempotent: a second run with the source already configured only prints the
# path.  Prints the configured source tree (the directory that holds
# config.h) as its last line on stdout; progress goes to stderr.
#
# Needs root (apt-get).  It adds a deb-src entry derived from this machine's
# own Debian "deb" entries (no mirror host is named here), runs apt-get
# update, installs build dependencies only if configure cannot run without
# them, and runs `apt-get source`.
set -euo pipefail

dest=${1:-build/slurm-src}
srcpkg=slurm-wlm
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
log() { printf 'slurm-source: %s\n' "$*" >&2; }
t0=$(date +%s)

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

# Already done?
existing=$(find "$dest" -mindepth 2 -maxdepth 2 -name config.h -path '*/slurm-wlm-*/config.h' 2>/dev/null | head -n1 || true)
if [ -n "$existing" ] && [ -f "$(dirname "$existing")/slurm/slurm.h" ]; then
    log "already configured"
    dirname "$existing"
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive

# ---- 1. deb-src entry -------------------------------------------------------
srcfile_deb822=/etc/apt/sources.list.d/attrib-deb-src.sources
srcfile_list=/etc/apt/sources.list.d/attrib-deb-src.list

have_debsrc() {
    # apt-cache showsrc prints nothing (and exits 0) when no deb-src knows it
    # (no grep -q in a pipe: with pipefail, SIGPIPE on apt-cache fails it)
    local out
    out=$(apt-cache showsrc "$srcpkg" 2>/dev/null || true)
    case $out in *"Package: $srcpkg"*) return 0 ;; *) return 1 ;; esac
}

add_debsrc() {
    local f
    # deb822 files (Debian 12 default: /etc/apt/sources.list.d/debian.sources)
    if [ ! -e "$srcfile_deb822" ]; then
        : >"$srcfile_deb822.tmp"
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -e "$f" ] || continue
            [ "$f" = "$srcfile_deb822" ] && continue
            # copy every stanza whose Types include "deb" and whose Suites
            # name a Debian release, turning it into a deb-src stanza
            awk -v codename="$codename" '
                function flush() {
                    if (stanza != "" && isdeb && isdebian) {
                        print stanza
                    }
                    stanza = ""; isdeb = 0; isdebian = 0
                }
                /^[[:space:]]*$/ { flush(); next }
                /^[[:space:]]*#/ { next }
                /^Types:/ {
                    for (i = 2; i <= NF; i++) if ($i == "deb") isdeb = 1
                    stanza = stanza "Types: deb-src\n"; next
                }
                /^Suites:/ { if (index($0, codename)) isdebian = 1 }
                /^Enabled:[[:space:]]*no/ { isdeb = 0 }
                { stanza = stanza $0 "\n" }
                END { flush() }
            ' "$f" >>"$srcfile_deb822.tmp"
        done
        if [ -s "$srcfile_deb822.tmp" ]; then
            mv "$srcfile_deb822.tmp" "$srcfile_deb822"
            log "added $srcfile_deb822"
            return 0
        fi
        rm -f "$srcfile_deb822.tmp"
    fi
    # one-line format (/etc/apt/sources.list and *.list)
    if [ ! -e "$srcfile_list" ]; then
        cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
            sed -n "s/^[[:space:]]*deb\\([[:space:]].*$codename.*\\)\$/deb-src\\1/p" |
            sort -u >"$srcfile_list.tmp" || true
        if [ -s "$srcfile_list.tmp" ]; then
            mv "$srcfile_list.tmp" "$srcfile_list"
            log "added $srcfile_list"
            return 0
        fi
        rm -f "$srcfile_list.tmp"
    fi
    return 1
}

if ! have_debsrc; then
    add_debsrc || log "warning: found no Debian $codename 'deb' entry to mirror as deb-src"
    log "apt-get update"
    apt-get update -qq >&2
    have_debsrc || { log "error: no deb-src for $srcpkg after apt-get update"; exit 1; }
fi

command -v dpkg-source >/dev/null || { log "installing dpkg-dev"; apt-get install -y -qq dpkg-dev >&2; }

# ---- 2. apt-get source ------------------------------------------------------
# Match the installed Slurm when there is one, so headers agree with the
# running daemons (plugin_version is checked against SLURM_VERSION_NUMBER).
ver=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || true)
spec=$srcpkg
[ -n "$ver" ] && spec="$srcpkg=$ver"

tree=$(find "$dest" -mindepth 1 -maxdepth 1 -type d -name 'slurm-wlm-*' | head -n1 || true)
if [ -z "$tree" ] || [ ! -f "$tree/configure" ]; then
    log "apt-get source $spec"
    # (Sandbox::User=root: the download dir need not be writable by _apt)
    (cd "$dest" && apt-get source -qq -o APT::Sandbox::User=root "$spec" >&2) ||
        (cd "$dest" && apt-get source -qq -o APT::Sandbox::User=root "$srcpkg" >&2) || true
    tree=$(find "$dest" -mindepth 1 -maxdepth 1 -type d -name 'slurm-wlm-*' | head -n1)
    # A mirror may hold the upstream tarball but not Debian's packaging
    # (.dsc, .debian.tar.xz: seen with Debian 13's point release): the
    # upstream source of the same version serves for the headers.
    orig=$(find "$dest" -maxdepth 1 -name "${srcpkg}_*.orig.tar.*" | head -n1)
    if [ -z "$tree" ] && [ -n "$orig" ]; then
        up=${orig##*/${srcpkg}_}; up=${up%.orig.tar.*}
        log "no Debian packaging on the mirror: unpacking the upstream $up"
        mkdir -p "$dest/$srcpkg-$up"
        tar -C "$dest/$srcpkg-$up" --strip-components=1 -xf "$orig"
        tree=$dest/$srcpkg-$up
    fi
fi
if [ -z "$tree" ] || [ ! -f "$tree/configure" ]; then log "error: no source tree in $dest"; exit 1; fi

# ---- 3. configure -----------------------------------------------------------
run_configure() {
    # options as in Debian's debian/rules (paths, multiple-slurmd, no debug)
    # so that config.h agrees with the installed daemons
    (cd "$tree" && ./configure -q --prefix=/usr --sysconfdir=/etc/slurm \
        --libdir="/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)" \
        --enable-multiple-slurmd --disable-debug --with-munge \
        >"$tree/attrib-configure.log" 2>&1)
}
log "configure (log: $tree/attrib-configure.log)"
if ! run_configure; then
    log "configure failed; apt-get build-dep $srcpkg"
    apt-get build-dep -y -qq "$srcpkg" >&2
    run_configure || { log "error: configure failed, see $tree/attrib-configure.log"; exit 1; }
fi
if [ ! -f "$tree/config.h" ] || [ ! -f "$tree/slurm/slurm.h" ]; then
    log "error: configure did not produce config.h / slurm/slurm.h"; exit 1
fi

log "done in $(( $(date +%s) - t0 )) s"
echo "$tree"
