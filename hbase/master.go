package hbase

import (
	"errors"

	"github.com/hbkit/hbkit/internal/rpc"
)

// masterFailed updates the cached master address after err from the
// master at addr ("" if finding it failed), classified as kind, for
// masterCall's retry loop. The address is dropped, so that the next
// attempt (after the retry's backoff) reads the active master from
// ZooKeeper again, when the connection failed, or when the server says it
// is not the active master or not ready to act as one:
// ServerNotRunningYetException, PleaseHoldException (a backup master, or a
// master still initialising), MasterNotRunningException and
// MasterStoppedException (a master shutting down). A master that failed
// over is thus found again without a new client.
func (c *Client) masterFailed(addr string, err error, kind retryKind) {
	if addr == "" {
		return
	}
	forget := kind == retryConn || kind == retryRelocate || notActiveMaster(err)
	if forget {
		c.forgetMaster(addr)
	}
	if c.onMasterFailed != nil {
		c.onMasterFailed(addr, err, forget)
	}
}

// excMasterStopped is what a master that is shutting down answers.
const excMasterStopped = "org.apache.hadoop.hbase.exceptions.MasterStoppedException"

// notActiveMaster reports whether err says the server it came from is not
// (yet, or any more) the active master.
func notActiveMaster(err error) bool {
	var re *rpc.RemoteError
	if errors.As(err, &re) {
		switch re.Class {
		case excNotRunningYet, excPleaseHold, excMasterNotRunning, excMasterStopped:
			return true
		}
	}
	return false
}
