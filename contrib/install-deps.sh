#!/bin/sh
# Installs what building and testing attrib needs on Debian 12 (run as root).
# One list, used by the README's commands and by CI.
set -eu
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
	build-essential autoconf automake libtool pkg-config \
	libpcre2-dev libjson-c-dev libyaml-dev libvectorscan-dev check \
	ca-certificates
