# attribd run by a test without a cluster (sourced by t/service-*.sh).
# Uses $ATTRIBD (default: attribd beside the caller's A, the attrib program), T (its temporary directory, with
# T/attrib.conf) and URL; sets spid, which the caller's cleanup kills.

# free_port FIRST: the first of FIRST..FIRST+50 nothing listens on (127.0.0.1)
free_port() {
	local p
	for p in $(seq "$1" $(($1 + 50))); do
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return; fi
	done
}
# start: attribd in the background; 0 once /v1/health answers (60 s),
# 1 if it does not, or exits
start() {
	"${ATTRIBD:-$(dirname "$A")/attribd}" --config "$T/attrib.conf" --foreground 2>>"$T/serve.err" &
	spid=$!
	wait_for 60 answers_or_gone && curl -sf "$URL/v1/health" >/dev/null 2>&1
}
answers_or_gone() { curl -sf "$URL/v1/health" >/dev/null 2>&1 || ! kill -0 "$spid" 2>/dev/null; }
# stop: SIGTERM; the exit status of attrib serve
stop() {
	local rc
	kill -TERM "$spid"
	wait "$spid"
	rc=$?
	spid=
	return $rc
}
