#!/bin/sh
# The whole live pipeline (t/live-pipeline.sh) without jobcomp/attrib: the
# job records come from EpilogSlurmctld running attrib-jobrecord (slurm.conf
# keeps JobCompType=jobcomp/none, as on a site that uses another one), job
# end to AdminComment; prints what attrib-jobrecord cost per job.  Runs only
# with ATTRIB_LIVE_TESTS=1 (else skipped, 77).
ATTRIB_LIVE_JOBRECORD=epilogslurmctld
ATTRIB_PIPELINE_CLUSTER_DIR=${ATTRIB_EPILOGCTLD_CLUSTER_DIR:-/tmp/attrib-cluster-epilogctld}
export ATTRIB_LIVE_JOBRECORD ATTRIB_PIPELINE_CLUSTER_DIR
exec "$(dirname "$0")/live-pipeline.sh" "$@"
