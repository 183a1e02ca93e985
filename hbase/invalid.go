package hbase

import "fmt"

// invalid and invalidf make the *InvalidRequestError of a request the
// client refuses before sending it.
func invalid(op, field string, sentinel error, reason string) error {
	return &InvalidRequestError{Op: op, Field: field, Reason: reason, Err: sentinel}
}

func invalidf(op, field string, sentinel error, format string, args ...any) error {
	return invalid(op, field, sentinel, fmt.Sprintf(format, args...))
}
