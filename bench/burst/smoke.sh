#!/bin/bash
# make check's small burst (bench/README.md, section 5): 64 nodes' bundles
# within 0.5 s, each from its own loopback address with a MUNGE credential
# made there; every one must be accepted (202), the stored diagnosis must
# name the planted culprit with no node missing, and a credential made on
# another node than the one it names must be refused (403).  Skipped (77)
# without root, munged or munge.
SRC=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
exec bash "$SRC/bench/burst/run.sh" 64 300 0.5
