#!/bin/bash
# Install what t/cluster/cluster.sh and smoke.sh need on Debian 12 (root).
# Idempotent and quiet: installs only what is missing.
#
#   slurmctld slurmd slurmdbd slurm-client   Slurm 22.05 daemons and commands
#                                            (pull slurm-wlm-basic-plugins,
#                                            slurm-wlm-mysql-plugin, munge)
#   munge                                    munged, mungekey
#   mariadb-server-core mariadb-client-core  mariadbd, mariadb-install-db,
#                                            mariadb, my_print_defaults (not
#                                            mariadb-server: no system service)
#   libslurm-dev                             slurm/slurm.h, slurmdb.h, -lslurm
#   iproute2 util-linux mount hostname       ip/ss, nsenter/unshare/setsid
#                                            (in the base image already)
set -euo pipefail

pkgs="slurmctld slurmd slurmdbd slurm-client munge mariadb-server-core
      mariadb-client-core libslurm-dev iproute2 util-linux mount hostname"
missing=
for p in $pkgs; do
    st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$st" = installed ] || missing="$missing $p"
done
[ -n "$missing" ] || exit 0
echo "t/cluster/deps.sh: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
