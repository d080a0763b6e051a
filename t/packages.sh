#!/bin/bash
# The packages follow the split of the programs: the package of the attrib
# command depends on no Slurm, MUNGE or microhttpd (neither in
# debian/control nor in attrib.spec.in, nor in what dpkg-shlibdeps derives
# from the attrib binary this build made), holds no file that links Slurm
# (the Slurm module is attribd's), and attribd's package is the one that
# depends on Slurm.
set -u
A=${ATTRIB:-./attrib}
SRC=$(cd "${SRCDIR:-.}" && pwd)
. "$SRC/t/lib/check.sh"
A=$(cd "$(dirname "$A")" && pwd)/$(basename "$A")
DAEMON='slurm|munge|microhttpd'

# the fields of one stanza of debian/control that name other packages
stanza() { # PACKAGE
	awk -v p="$1" '/^Package:/ { on = ($2 == p) } on' "$SRC/debian/control" |
		awk '/^(Depends|Pre-Depends|Recommends):/ { f = 1; print; next } /^[^ ]/ { f = 0 } f'
}
deps=$(stanza attrib)
check "debian/control: attrib has a Depends field" grep -q '^Depends:' <<<"$deps"
check "debian/control: attrib depends on no Slurm, MUNGE or microhttpd" eval "! grep -Eqi '$DAEMON' <<<\"\$deps\""
check "debian/control: attribd depends on Slurm" eval "stanza attribd | grep -q slurm-wlm"
check "debian/attrib.install: the attrib command, no Slurm module or plugin" \
	eval "grep -qx 'usr/bin/attrib' '$SRC/debian/attrib.install' && ! grep -Eq 'attrib_slurm|slurm-wlm' '$SRC/debian/attrib.install'"
check "debian/attribd.install: the Slurm module of attrib" grep -q 'attrib_slurm.so' "$SRC/debian/attribd.install"

# attrib.spec.in: the main package is what stands before the first %package
main=$(sed -n '1,/^%package/p' "$SRC/attrib.spec.in" | grep -E '^Requires:')
check "attrib.spec.in: attrib requires no Slurm, MUNGE or microhttpd" eval "! grep -Eqi '$DAEMON' <<<\"\$main\""
check "attrib.spec.in: attribd requires Slurm" \
	eval "sed -n '/^%package -n attribd/,/^%description/p' '$SRC/attrib.spec.in' | grep -Eq '^Requires:.*slurm'"
files=$(sed -n '/^%files$/,/^%files /p' "$SRC/attrib.spec.in")
check "attrib.spec.in: %files of attrib holds the command, no Slurm module" \
	eval "grep -q '%{_bindir}/attrib' <<<\"\$files\" && ! grep -q attrib_slurm <<<\"\$files\""

# ${shlibs:Depends} of the attrib package: what the binary links
command -v dpkg-shlibdeps >/dev/null || { echo "# (no dpkg-shlibdeps: the control files only)"; finish; }
shl=$(cd "$SRC" && dpkg-shlibdeps -O "$A" 2>/dev/null) || { bad "dpkg-shlibdeps reads $A"; finish; }
echo "# $shl"
check "dpkg-shlibdeps of attrib: libc and the engine's libraries" grep -q 'libc6.*libjson-c' <<<"$shl"
check "dpkg-shlibdeps of attrib: no Slurm, MUNGE or microhttpd" eval "! grep -Eqi '$DAEMON' <<<\"\$shl\""
finish
