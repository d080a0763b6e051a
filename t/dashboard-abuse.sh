#!/bin/bash
# The dashboard (service/dashboard.c) under the intake's attacks and the
# checks that keep it to the operators; loopback only (127.0.X.Y source
# addresses play the many hosts, t/http-attack), no Slurm, no munged.
#
#   slow    160 connections from 20 addresses send request heads a byte
#           every 500 ms (opened again when closed) for 14 s;
#   burst   1,000 half-sent requests from 100 addresses opened at once and
#           held 14 s (t/service-abuse.sh's attacks, on the dashboard);
#   during each, / is asked every 0.2 s from 127.0.0.1: every answer must
#   be 200 within 1 s and their median within 100 ms (time_total of each
#   probe: on a loaded CI machine, three lanes of tests on two cores, a
#   probe may wait for a core), at least 20 probes;
#   Host    only the configured names are answered (421 otherwise), so a
#           DNS-rebound name (a page of evil.example whose name now points
#           to 127.0.0.1, reached through the SSH tunnel) gets nothing;
#   AllowFrom  an address outside DashboardAllowFrom is closed at accept;
#   start   beyond loopback without TLS and a token: refused unless
#           DashboardInsecure = yes; a token file of another user, or one
#           its group may read: refused.
# Before the fix, the dashboard held 64 connections (16 an address) and
# dropped one after 15 s of silence: both attacks starved it.  Needs root
# (a token file given to nobody), curl, python3.
set -u
A=${ATTRIB:-./attrib}
SRC=$(cd "${SRCDIR:-.}" && pwd)
AD=${ATTRIBD:-$(dirname "$A")/attribd}
ATTACK=${ATTACK:-$(dirname "$A")/t/http-attack}
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/service.sh"
[ "$(id -u)" = 0 ] || skip "needs root"
for c in curl python3; do command -v $c >/dev/null || skip "no $c"; done
[ -x "$ATTACK" ] || skip "no $ATTACK"
id nobody >/dev/null 2>&1 || skip "no user nobody"
T=$(mktemp -d /tmp/attrib-dabuse-XXXXXX)
. "$SRC/t/lib/dashboard.sh"
attack='' probe=''
cleanup() {
	[ -n "$attack" ] && kill "$attack" 2>/dev/null
	[ -n "$probe" ] && kill "$probe" 2>/dev/null
	dash_stop
	rm -rf "$T"
}
trap cleanup EXIT
export SLURM_CONF=$T/no-slurm.conf
mkdir -p "$T/state"

# the conf of t/lib/dashboard.sh: the dashboard's keys at their defaults
# (DashboardAllowFrom admits loopback, so the attackers get in: what is
# tested first is the limits, not the list)
dash_up $((23000 + $$ % 20000)); up=$?
[ $up = 2 ] && skip "no free port"
[ $up = 0 ] || { cat "$T/attribd.out" "$T/attrib.log"; bad "attribd with Dashboard = on starts"; finish; }
ok "attribd with Dashboard = on starts"

# probes of /: one every 0.2 s, 2 s limit; "SECONDS CODE" per line
start_probe() {
	: >"$T/probe-$1"
	(while :; do
		curl -s -o /dev/null -m 2 -w '%{time_total} %{http_code}\n' "$D/" >>"$T/probe-$1" 2>/dev/null ||
			echo "2.000 000" >>"$T/probe-$1"
		sleep 0.2
	done) &
	probe=$!
}
stop_probe() { kill "$probe" 2>/dev/null; wait "$probe" 2>/dev/null; probe=; }
probe_report() { # NAME: "N probes, median S s, max S s, bad B"
	sort -n "$T/probe-$1" | awk '{ v[++n] = $1; if ($2 != 200 || $1 >= 0.1) b++ }
	     END { printf "%d probes, median %.4f s, max %.4f s, bad (not 200 within 100 ms) %d\n", n, v[int((n + 1) / 2)], v[n], b }'
}
probes_ok() { # NAME: every probe 200 within 1 s, their median within 100 ms, at least 20 of them
	[ "$(awk '$2 != 200 || $1 >= 1' "$T/probe-$1" | wc -l)" = 0 ] && [ "$(wc -l <"$T/probe-$1")" -ge 20 ] &&
		sort -n "$T/probe-$1" | awk '{ v[++n] = $1 } END { exit !(v[int((n + 1) / 2)] < 0.1) }'
}
# attack NAME MODE FIRST NADDR PER: the attack for 14 s under the probes
attack() {
	start_probe "$1"
	"$ATTACK" "$2" "$dport" "$3" "$4" "$5" 14 >"$T/attack-$1" 2>&1 &
	attack=$!
	wait "$attack"
	attack=
	stop_probe
	echo "# $(cat "$T/attack-$1")"
	echo "# $1: /: $(probe_report "$1")"
	# after the attack: the time until / answers again (300 s at most)
	local t0 t1
	t0=$(date +%s.%N)
	for _ in $(seq 300); do
		[ "$(curl -s -o /dev/null -m 1 -w '%{http_code}' "$D/")" = 200 ] && break
	done
	t1=$(date +%s.%N)
	recovered=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	echo "# $1: / answered again $recovered s after the attack's end"
}

attack slow slow 127.0.2.1 20 8
check "slow heads: / answered 200 throughout, the median within 100 ms" probes_ok slow
check "slow heads: / answers at once after the attack" awk -v r="$recovered" 'BEGIN { exit !(r < 1) }'
attack burst burst 127.0.3.1 100 10
check "burst: / answered 200 throughout, the median within 100 ms" probes_ok burst
check "burst: / answers at once after the attack" awk -v r="$recovered" 'BEGIN { exit !(r < 1) }'
check "burst: all 1,000 half-sent requests cut by the server within 14 s" \
	grep -q 'opened 1000, closed by the server 1000$' "$T/attack-burst"
curl -s "http://127.0.0.1:$port/metrics" >"$T/metrics"
check "the heads cut are counted (attrib_dashboard_header_timeouts_total)" \
	grep -Eq '^attrib_dashboard_header_timeouts_total [1-9]' "$T/metrics"
check "the dashboard still runs" kill -0 "$dpid"

# ---- Host: DNS rebinding ------------------------------------------------------
host() { # HOST [curl args]: the status of / asked with that Host header
	curl -s -o "$T/b" -w '%{http_code}' -H "Host: $1" "${@:2}" "$D/"
}
check "Host: 127.0.0.1:$dport: 200" test "$(host "127.0.0.1:$dport")" = 200
check "Host: localhost:9000 (an SSH tunnel's other port): 200" test "$(host localhost:9000)" = 200
check "Host: [::1]:$dport: 200" test "$(host "[::1]:$dport")" = 200
check "Host: LOCALHOST (names are not case-sensitive): 200" test "$(host LOCALHOST)" = 200
check "Host: evil.example: 421" test "$(host evil.example)" = 421
check "421 says which names are answered" grep -q 'DashboardHosts' "$T/b"
check "Host: evil.example:$dport: 421" test "$(host "evil.example:$dport")" = 421
check "Host: 127.0.0.1.evil.example: 421" test "$(host 127.0.0.1.evil.example)" = 421
check "Host: localhost:80x (not a port): 400" test "$(host localhost:80x)" = 400
check "Host: evil.example, the API too: 421" \
	test "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: evil.example' "$D/api/v1/jobs")" = 421
check "no Host header (HTTP/1.0): 400" \
	test "$(curl -s -o /dev/null -w '%{http_code}' --http1.0 -H 'Host:' "$D/")" = 400
dash_stop

{ cat "$T/attrib.conf"; echo "DashboardHosts = attrib.example.org"; } >"$T/hosts.conf"
: >"$T/attrib.log"
if dash_start "$T/hosts.conf"; then
	check "DashboardHosts = attrib.example.org: Host attrib.example.org:443 200" test "$(host attrib.example.org:443)" = 200
	check "DashboardHosts = attrib.example.org: Host localhost 421 (the list replaces the defaults)" test "$(host localhost)" = 421
	check "DashboardHosts = attrib.example.org: the listen address still answers" test "$(host "127.0.0.1:$dport")" = 200
else
	bad "attribd with DashboardHosts starts"
	cat "$T/attribd.out" | sed 's/^/#   /'
fi
dash_stop

# ---- DashboardAllowFrom -------------------------------------------------------
{ cat "$T/attrib.conf"; echo "DashboardAllowFrom = 127.0.0.1/32"; } >"$T/allow.conf"
: >"$T/attrib.log"
if dash_start "$T/allow.conf"; then
	check "DashboardAllowFrom = 127.0.0.1/32: from 127.0.0.9 no answer (closed at accept)" \
		test "$(curl -s -o /dev/null -m 3 -w '%{http_code}' --interface 127.0.0.9 "$D/")" = 000
	check "DashboardAllowFrom = 127.0.0.1/32: from 127.0.0.1 200" test "$(host "127.0.0.1:$dport")" = 200
	curl -s "http://127.0.0.1:$port/metrics" >"$T/metrics"
	check "refused at accept: counted (attrib_dashboard_refused_address_total)" \
		grep -Eq '^attrib_dashboard_refused_address_total [1-9]' "$T/metrics"
else
	bad "attribd with DashboardAllowFrom starts"
	cat "$T/attribd.out" | sed 's/^/#   /'
fi
dash_stop
{ cat "$T/attrib.conf"; echo "DashboardAllowFrom = slurm"; } >"$T/allow-slurm.conf"

# ---- refused at start ---------------------------------------------------------
# refused CONF: attribd with CONF exits non-zero within 10 s (its output
# in $T/out); else it is stopped and refused fails
refused() {
	local p rc
	: >"$T/attrib.log"
	"$AD" --config "$1" --foreground >"$T/out" 2>&1 &
	p=$!
	for _ in $(seq 100); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
	if kill -0 $p 2>/dev/null; then
		kill $p
		wait $p
		return 1
	fi
	wait $p
	rc=$?
	cat "$T/attrib.log" >>"$T/out" 2>/dev/null
	[ $rc != 0 ]
}
check "DashboardAllowFrom = slurm: refused (the dashboard is not the nodes')" refused "$T/allow-slurm.conf"
check "... saying so" grep -q 'DashboardAllowFrom: slurm' "$T/out"

wport=$(free_port $((dport + 200)))
sed "s/^DashboardListen = .*/DashboardListen = 0.0.0.0:$wport/" "$T/attrib.conf" >"$T/any.conf"
check "DashboardListen = 0.0.0.0 without TLS or token: attribd refuses to start" refused "$T/any.conf"
check "... with a message naming what is missing and DashboardInsecure" \
	grep -q 'DashboardListen 0.0.0.0:[0-9]* is not a loopback address.*DashboardInsecure = yes' "$T/out"
sed 's/^/#   /' "$T/out" | grep -m1 'loopback'

tok=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$tok" >"$T/token"
chmod 0600 "$T/token"
{ cat "$T/any.conf"; echo "DashboardTokenFile = $T/token"; } >"$T/any-tok.conf"
check "DashboardListen = 0.0.0.0 with a token but no TLS: refused (the token would travel in clear)" refused "$T/any-tok.conf"

{ cat "$T/any.conf"; echo "DashboardInsecure = yes"; } >"$T/any-insecure.conf"
: >"$T/attrib.log"
if dash_start "$T/any-insecure.conf"; then
	ok "DashboardListen = 0.0.0.0 with DashboardInsecure = yes: starts"
	check "... and warns in the log" grep -q 'warning: dashboard on 0.0.0.0:[0-9]* without TLS and a token' "$T/attrib.log"
else
	bad "DashboardListen = 0.0.0.0 with DashboardInsecure = yes: starts"
	sed 's/^/#   /' "$T/attribd.out"
fi
dash_stop

if command -v openssl >/dev/null; then
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 1 \
		-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
	chmod 0600 "$T/key.pem"
	{ cat "$T/any.conf"; echo "DashboardTLSCert = $T/cert.pem"; echo "DashboardTLSKey = $T/key.pem"; } >"$T/any-tls.conf"
	check "DashboardListen = 0.0.0.0 with TLS but no token: refused" refused "$T/any-tls.conf"
	{ cat "$T/any-tls.conf"; echo "DashboardTokenFile = $T/token"; } >"$T/any-tls-tok.conf"
	: >"$T/attrib.log"
	if dash_start "$T/any-tls-tok.conf"; then
		check "DashboardListen = 0.0.0.0 with TLS and a token: starts, the token needed" \
			test "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$T/cert.pem" "https://127.0.0.1:$wport/")" = 401
		check "... and answers with it" test "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$T/cert.pem" \
			-H "Authorization: Bearer $tok" "https://127.0.0.1:$wport/")" = 200
	else
		bad "DashboardListen = 0.0.0.0 with TLS and a token: starts"
		sed 's/^/#   /' "$T/attribd.out"
	fi
	dash_stop
	chown nobody "$T/key.pem"
	{ cat "$T/attrib.conf"; echo "DashboardTLSCert = $T/cert.pem"; echo "DashboardTLSKey = $T/key.pem"; } >"$T/tls-nobody.conf"
	check "a TLS key owned by nobody: refused" refused "$T/tls-nobody.conf"
	check "... saying whose it is" grep -q "key.pem: owned by nobody" "$T/out"
else
	echo "# no openssl: TLS not tested"
fi

# ---- the token file's owner and mode -------------------------------------------
{ cat "$T/attrib.conf"; echo "DashboardTokenFile = $T/token"; } >"$T/tok.conf"
chown nobody "$T/token"
check "a token file owned by nobody (mode 0600): attribd refuses to start" refused "$T/tok.conf"
check "... saying whose it is and whose it must be" \
	grep -q "token: owned by nobody (uid $(id -u nobody)), not by root or attribd's user" "$T/out"
sed 's/^/#   /' "$T/out" | grep -m1 'owned by'
chown root "$T/token"
chmod 0640 "$T/token"
check "a token file its group may read (0640): refused" refused "$T/tok.conf"
check "... saying so" grep -q "token: mode 640: its group or other users have access to it (chmod 600)" "$T/out"
chmod 0620 "$T/token"
check "a token file its group may write (0620): refused" refused "$T/tok.conf"
chmod 0600 "$T/token"
: >"$T/attrib.log"
if dash_start "$T/tok.conf"; then
	check "root's token file, mode 0600: starts, the token needed" test "$(host "127.0.0.1:$dport")" = 401
else
	bad "root's token file, mode 0600: starts"
	sed 's/^/#   /' "$T/attribd.out"
fi
dash_stop
finish
