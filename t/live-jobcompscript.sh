#!/bin/sh
# The whole live pipeline (t/live-pipeline.sh) with the job records from
# JobCompType=jobcomp/script running attrib-jobrecord (JobCompLoc = the
# hook; no jobcomp/attrib, no EpilogSlurmctld), the set-up the admin guide
# gives for a site that keeps its EpilogSlurmctld; job end to AdminComment;
# prints what attrib-jobrecord cost per job.  Runs only with
# ATTRIB_LIVE_TESTS=1 (else skipped, 77).
ATTRIB_LIVE_JOBRECORD=jobcompscript
ATTRIB_PIPELINE_CLUSTER_DIR=${ATTRIB_JOBCOMPSCRIPT_CLUSTER_DIR:-/tmp/attrib-cluster-jobcompscript}
export ATTRIB_LIVE_JOBRECORD ATTRIB_PIPELINE_CLUSTER_DIR
exec "$(dirname "$0")/live-pipeline.sh" "$@"
