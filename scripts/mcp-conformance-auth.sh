#!/usr/bin/env bash
# mcp-conformance-auth.sh: runs the official MCP conformance suite's auth
# scenarios against lathe as the client.
#
#   scripts/mcp-conformance-auth.sh run [SCENARIO...]   every auth scenario, or those named
#   scripts/mcp-conformance-auth.sh client URL          the adapter the suite starts
#
# run needs CONFORMANCE, the suite's dist/index.js (npm package
# @modelcontextprotocol/conformance 0.1.16; on node 20 its globSync import
# must be patched out, as shared/audits/kits/mcp-kit/setup.sh does), node,
# jq and curl. It builds lathe and the fake Ollama, runs each scenario and
# prints one line per scenario, then the count; the suite's results are
# left in $OUT (default: a temporary directory).
#
# What the adapter does, as a user would: it writes a config with the
# scenario's server as "conf" (its [oauth] table from the scenario's
# context), runs lathe mcp login conf with a $BROWSER that follows the
# authorization server's redirect at once (grants without a user need no
# login), then lathe -p with a scripted model that calls conf__test-tool;
# when that run says to log in again (a step-up), it logs in and runs once
# more.
set -euo pipefail

client() {
	local url=$1 scen=${MCP_CONFORMANCE_SCENARIO:?} ctx=${MCP_CONFORMANCE_CONTEXT:-'{}'}
	w=$(mktemp -d)
	trap 'rm -rf "$w"' EXIT
	mkdir -p "$w/home" "$w/cfg/lathe" "$w/data" "$w/proj"
	get() { jq -r ".$1 // empty" <<<"$ctx"; }
	{
		printf '[mcp.servers.conf]\nurl = "%s"\ntimeout = "20s"\n[mcp.servers.conf.oauth]\n' "$url"
		case $scen in
		auth/client-credentials-*)
			printf 'grant = "client_credentials"\nclient_id = "%s"\n' "$(get client_id)"
			if [[ -n $(get private_key_pem) ]]; then
				get private_key_pem >"$w/key.pem"
				printf 'private_key_file = "%s"\nsigning_algorithm = "%s"\n' "$w/key.pem" "$(get signing_algorithm)"
			else
				printf 'client_secret_env = "CONF_SECRET"\n'
			fi
			;;
		auth/cross-app-access-*)
			printf 'grant = "cross_app_access"\nclient_id = "%s"\nclient_secret_env = "CONF_SECRET"\n' "$(get client_id)"
			printf 'idp_issuer = "%s"\nidp_token_endpoint = "%s"\n' "$(get idp_issuer)" "$(get idp_token_endpoint)"
			printf 'idp_client_id = "%s"\nid_token_env = "CONF_ID_TOKEN"\n' "$(get idp_client_id)"
			;;
		*)
			printf 'client_metadata_url = "https://conformance-test.local/client-metadata.json"\n'
			if [[ -n $(get client_id) ]]; then
				printf 'client_id = "%s"\nclient_secret_env = "CONF_SECRET"\n' "$(get client_id)"
			fi
			;;
		esac
	} >"$w/cfg/lathe/config.toml"
	printf '#!/bin/sh\nexec curl -s -o /dev/null -L "$1"\n' >"$w/browser"
	chmod +x "$w/browser"
	printf '[{"tool_calls":[{"name":"conf__test-tool","arguments":{}}]},{"content":"done."}]\n' >"$w/model.json"
	export HOME="$w/home" XDG_CONFIG_HOME="$w/cfg" XDG_DATA_HOME="$w/data" XDG_STATE_HOME="$w/data" \
		BROWSER="$w/browser" CONF_SECRET="$(get client_secret)" CONF_ID_TOKEN="$(get idp_id_token)"
	cd "$w/proj"
	login() { [[ $scen == auth/client-credentials-* || $scen == auth/cross-app-access-* ]] || "$LATHE" mcp login conf </dev/null; }
	prompt() {
		"$FAKEOLLAMA" -addr-file "$w/addr" "$w/model.json" >/dev/null 2>&1 &
		local fake=$! rc=0
		while [[ ! -s $w/addr ]]; do sleep 0.05; done
		OLLAMA_HOST=$(cat "$w/addr") "$LATHE" -p "run the scenario" --yes </dev/null 2> >(tee "$w/err" >&2) || rc=$?
		kill "$fake" 2>/dev/null || true
		wait "$fake" 2>/dev/null || true
		rm -f "$w/addr"
		return $rc
	}
	login || return 1
	prompt || true
	if grep -q 'run lathe mcp login conf' "$w/err"; then
		login || return 1
		prompt
	fi
}

run() {
	: "${CONFORMANCE:?set CONFORMANCE to the dist/index.js of the suite}"
	local root bin out
	root=$(cd "$(dirname "$0")/.." && pwd)
	bin=$(mktemp -d)
	out=${OUT:-$(mktemp -d)}
	(cd "$root" && go build -o "$bin/lathe" . && go build -o "$bin/fakeollama" ./scripts/fakeollama)
	local scenarios=("$@")
	if ((${#scenarios[@]} == 0)); then
		mapfile -t scenarios < <(node "$CONFORMANCE" list 2>/dev/null | sed -n 's/^  - \(auth\/[^ ]*\) .*/\1/p')
	fi
	local passed=0
	for s in "${scenarios[@]}"; do
		local dir="$out/${s//\//_}"
		mkdir -p "$dir"
		LATHE="$bin/lathe" FAKEOLLAMA="$bin/fakeollama" node "$CONFORMANCE" client \
			--command "$root/scripts/mcp-conformance-auth.sh client" --scenario "$s" -o "$dir" >"$dir/suite.log" 2>&1 || true
		local result
		result=$(sed -n 's/^Passed: \(.*\)$/\1/p' "$dir/suite.log")
		if grep -q 'OVERALL: PASSED' "$dir/suite.log"; then
			passed=$((passed + 1))
			printf 'PASS  %s  (%s)\n' "$s" "$result"
		else
			printf 'FAIL  %s  (%s; %s)\n' "$s" "${result:-no result}" "$dir"
		fi
	done
	printf '%d of %d auth scenarios passed\n' "$passed" "${#scenarios[@]}"
}

case ${1:-} in
client) client "$2" ;;
run) shift && run "$@" ;;
*)
	sed -n '2,/^set /p' "$0" | sed '$d' >&2
	exit 2
	;;
esac
