#!/bin/bash
# Builds (or reuses) a Debian 13 "trixie" root file system with Slurm 24.11,
# everything attrib's build, packages and live test cluster need
# (contrib/install-deps.sh, run inside), and the configured Slurm 24.11
# source in /opt/build/slurm-src (for the jobcomp plugin's internal headers),
# so that the whole suite can run against Slurm 24.11 on a Debian 12 host.
#
# Usage: contrib/trixie-root.sh [DIR]       (default: build/trixie-root)
#        contrib/trixie-root.sh --run DIR CMD...   run CMD as root inside DIR
#
# The root is kept between runs and reused while it is still valid: its
# stamp (DIR/.attrib-root) holds the digest of this script and of
# install-deps.sh and slurm-source.sh; a change to any of them rebuilds it.
# Needs root and mmdebstrap; the
# mirror is the one this machine's own apt sources name.
set -euo pipefail

log() { printf 'trixie-root: %s\n' "$*" >&2; }
self=$(readlink -f "$0")

mounted() { findmnt -rn "$1" >/dev/null 2>&1; }
mount_all() {	# the kernel file systems a chroot needs (the cluster makes netns)
	local d=$1
	# the root a mount point of its own: unshare(1) and ip(8) change the
	# propagation of "/", which must then be a mount
	mountpoint -q "$d" || mount --bind "$d" "$d"
	mounted "$d/proc" || mount -t proc proc "$d/proc"
	mounted "$d/sys" || mount --rbind /sys "$d/sys"
	mounted "$d/dev" || mount --rbind /dev "$d/dev"
	# the host's /run: the test cluster's claim (/run/lock) is the
	# machine's, so a cluster in the root waits for one outside it and the
	# reverse (one cluster per machine: fixed bridge name).  A slave copy:
	# the host's network namespaces are seen inside, but nothing mounted or
	# unmounted inside (ip netns add/del, the unmount below) reaches the
	# host's /run/netns, a shared mount, where other clusters' are
	# this machine's names (the root is this machine: munged takes its
	# credentials' origin from the host name)
	mounted "$d/etc/hosts" || { touch "$d/etc/hosts" && mount --bind -o ro /etc/hosts "$d/etc/hosts"; }
	mkdir -p "$d/run" /run/netns
	if ! mounted "$d/run"; then
		mount --rbind /run "$d/run"
		mount --make-rslave "$d/run"
	fi
}
umount_all() {
	local d=$1 m
	mounted "$d/run" && mount --make-rslave "$d/run"
	for m in etc/hosts run dev sys proc; do
		mounted "$d/$m" && umount -R -l "$d/$m" 2>/dev/null || true
	done
	mountpoint -q "$d" && umount -l "$d" 2>/dev/null || true
}

if [ "${1:-}" = --run ]; then	# --run DIR CMD...
	# each run in a mount namespace of its own (a slave of the host's):
	# its mounts are its own and go with its last process, so two runs in
	# one root (CI's leg and a test by hand) never unmount each other's
	exec unshare --mount --propagation slave "$self" --run-here "${@:2}"
fi
if [ "${1:-}" = --run-here ]; then	# (in that namespace) DIR CMD...
	dir=$(readlink -f "$2"); shift 2
	mount_all "$dir"
	exec chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LANG=C.UTF-8 TERM=dumb ${ATTRIB_ROOT_ENV:-} "$@"
fi

dir=$(readlink -m "${1:-build/trixie-root}")
want=$(cat "$self" "$(dirname "$self")/install-deps.sh" "$(dirname "$self")/slurm-source.sh" | sha256sum | cut -d' ' -f1)
if [ -f "$dir/.attrib-root" ] && [ "$(cat "$dir/.attrib-root")" = "$want" ]; then
	log "reusing $dir"
	echo "$dir"; exit 0
fi
command -v mmdebstrap >/dev/null || { log "error: needs mmdebstrap (apt-get install mmdebstrap)"; exit 1; }

# the mirror this machine uses (its deb822 or one-line sources)
mirror=$(sed -n 's/^URIs:[[:space:]]*\(http[^ ]*\/debian\)[[:space:]]*$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb[[:space:]]\+\(http[^ ]*\/debian\)\/\?[[:space:]].*/\1/p' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n1)
[ -n "$mirror" ] || { log "error: no Debian mirror in /etc/apt/sources.list*"; exit 1; }

t0=$SECONDS
umount_all "$dir"
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
log "mmdebstrap trixie from $mirror into $dir"
mmdebstrap --variant=apt --mode=root --format=directory \
	--customize-hook='rm -f "$1"/etc/hostname' \
	trixie "$dir" "deb $mirror trixie main" >&2

# what building and testing needs: contrib/install-deps.sh, the one list
# (it also fetches and configures the Slurm 24.11 source, in
# /opt/build/slurm-src)
mount_all "$dir"
trap 'umount_all "$dir"' EXIT
mkdir -p "$dir/opt/contrib"
install -m 755 "$(dirname "$self")/install-deps.sh" "$(dirname "$self")/slurm-source.sh" "$dir/opt/contrib/"
chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
	/opt/contrib/install-deps.sh >&2
echo "$want" >"$dir/.attrib-root"
log "done in $((SECONDS - t0)) s"
echo "$dir"
