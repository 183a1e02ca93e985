package proccpu

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// ErrNoProcess is wrapped by the error of Of for a pid that is not a
// positive number.
var ErrNoProcess = errors.New("proccpu: no such process")

// clockTick is the unit of the times in /proc/PID/stat: USER_HZ, which
// Linux fixes at 100 on every architecture Go supports.
const clockTick = 10 * time.Millisecond

// Of returns the CPU time process pid has spent so far (its threads
// together, not its children), from /proc/PID/stat, in steps of 10 ms.
// Where there is no /proc the error wraps fs.ErrNotExist.
func Of(pid int) (time.Duration, error) {
	if pid <= 0 {
		return 0, fmt.Errorf("%w: pid %d", ErrNoProcess, pid)
	}
	name := "/proc/" + strconv.Itoa(pid) + "/stat"
	b, err := os.ReadFile(name)
	if err != nil {
		return 0, fmt.Errorf("proccpu: %w", err)
	}
	return parseStat(name, b)
}

// parseStat reads utime and stime (fields 14 and 15) of a /proc/PID/stat.
func parseStat(name string, b []byte) (time.Duration, error) {
	// The command (field 2) is in parentheses and may hold spaces and
	// parentheses itself: count the fields after its last parenthesis.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("proccpu: %s: no command name", name)
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state), so utime is f[11] and stime f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("proccpu: %s: %d fields, want at least 15", name, len(f)+2)
	}
	ut, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	st, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("proccpu: %s: %w", name, err)
	}
	return time.Duration(ut+st) * clockTick, nil
}
