package proccpu

import "time"

// Window measures the CPU time this process, and another one when it is
// named, spend from Start to Stop: a benchmark's run, on its client and
// on a server on the same machine.
type Window struct {
	pid          int
	self, other  time.Duration
	selfMeasured bool
}

// Start opens a window over this process and, when pid > 0, process pid.
// The error is Of's for pid; the window then measures this process alone.
func Start(pid int) (Window, error) {
	var w Window
	var err error
	w.self, err = Self()
	w.selfMeasured = err == nil
	if pid > 0 {
		if w.other, err = Of(pid); err != nil {
			return w, err
		}
		w.pid = pid
	}
	return w, nil
}

// Stop returns the CPU time this process (0 where the system cannot
// tell, see Self) and the other one (0 without one) spent since Start.
// The error is Of's for the other process, which may have ended.
func (w Window) Stop() (self, other time.Duration, err error) {
	if s, err := Self(); err == nil && w.selfMeasured {
		self = s - w.self
	}
	if w.pid > 0 {
		o, err := Of(w.pid)
		if err != nil {
			return self, 0, err
		}
		other = o - w.other
	}
	return self, other, nil
}
