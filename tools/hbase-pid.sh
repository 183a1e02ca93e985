# hbase-pid.sh, sourced by the benchmark scripts: sets HBASE_PID to the pid
# of the HBase JVM behind HBKIT_ZK when it runs on this machine, so that
# they can report the server's CPU time next to the client's. An HBASE_PID
# already set wins; otherwise the launcher's state directories are searched
# (HBKIT_STATE, then the local and test HBase of tools/hbase) for one whose
# ZooKeeper port is HBKIT_ZK's and whose JVM is alive. HBASE_PID stays
# unset when none is.
if [ -z "${HBASE_PID:-}" ]; then
	hbase_pid_cache="${HBKIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hbkit}"
	for hbase_pid_info in ${HBKIT_STATE:+"$HBKIT_STATE/launcher.info"} "$hbase_pid_cache/state/launcher.info" "$hbase_pid_cache/test-state/launcher.info"; do
		[ -f "$hbase_pid_info" ] || continue
		hbase_pid_port=$(sed -n 's/^zk_port=//p' "$hbase_pid_info")
		hbase_pid_pid=$(sed -n 's/^pid=//p' "$hbase_pid_info")
		case "${HBKIT_ZK:-}" in
		127.0.0.1:"$hbase_pid_port" | localhost:"$hbase_pid_port") [ -d "/proc/$hbase_pid_pid" ] && HBASE_PID=$hbase_pid_pid && break ;;
		esac
	done
	unset hbase_pid_cache hbase_pid_info hbase_pid_port hbase_pid_pid
fi
