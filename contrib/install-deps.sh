#!/bin/sh
# Installs what building and testing attrib needs on Debian 12 or 13 (run as
# root; contrib/trixie-root.sh runs it in its Debian 13 root).
# One list, used by the README's commands and by CI.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
	build-essential autoconf automake libtool pkg-config ca-certificates \
	libpcre2-dev libjson-c-dev libyaml-dev libvectorscan-dev check \
	libcurl4-openssl-dev libssl-dev libmunge-dev munge curl \
	libmicrohttpd-dev libsqlite3-dev sqlite3 libslurm-dev libsystemd-dev \
	clang libclang-rt-dev procps mount hostname \
	slurmctld slurmd slurmdbd slurm-client mariadb-server-core mariadb-client-core \
	dpkg-dev iproute2 util-linux passwd python3 systemd-journal-remote time \
	debhelper lintian rpm clang-format chromium mmdebstrap openssh-server openssh-client
# (openssh-server, openssh-client: t/forged-collect.sh starts its own sshd on a
# loopback port and tries a user name that holds a fault's words)
# (systemd-journal-remote: t/epilog-collect.sh writes journal files with the
# fields journald would record, e.g. a user's entry named "kernel")
# (debhelper, lintian: make deb / dpkg-buildpackage and its check; rpm: make rpm;
# time: bench/engine/run.sh, run by its smoke test; clang-format: make
# check-format, the layout of .clang-format, checked by CI on Debian 12;
# chromium: t/dashboard-page.sh loads the dashboard in headless Chromium;
# mmdebstrap: contrib/trixie-root.sh builds the Debian 13 root of the Slurm
# 24.11 leg of .ci/run)
# The Slurm source the jobcomp plugin is built against (internal headers).
"$(dirname "$0")/slurm-source.sh" "$(dirname "$0")/../build/slurm-src" >/dev/null
