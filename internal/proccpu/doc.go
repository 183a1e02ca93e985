// Package proccpu reads the CPU time, user and system together, that a
// process has spent so far: this process's from getrusage, another's from
// /proc/PID/stat on Linux. The benchmarks (hbkit bench --server-pid,
// tools/gohbasebench) put it next to their rates, as CPU per operation on
// the client and on a local HBase, because on a machine whose cores the
// client and the server share, the rate follows the two together.
package proccpu
