package hbase

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"

	"github.com/hbkit/hbkit/internal/rpc"
)

// RemoteError is an exception raised by an HBase server for one call (or
// one action of a batch). errors.Is matches it against the package's
// sentinels (ErrTableNotFound, ErrNoSuchFamily, ...) when the exception
// maps to one; IsRetryable says whether the call may be sent again.
type RemoteError struct {
	// Class is the fully-qualified Java exception class, e.g.
	// "org.apache.hadoop.hbase.TableNotFoundException".
	Class string
	// Message is the exception's message, without the stack trace.
	Message string

	sentinel  error
	retryable bool
}

func (e *RemoteError) Error() string {
	short := e.Class
	if i := strings.LastIndexByte(short, '.'); i >= 0 {
		short = short[i+1:]
	}
	if e.Message == "" {
		return "hbase: " + short
	}
	return "hbase: " + short + ": " + e.Message
}

// Unwrap returns the sentinel the exception maps to, or nil.
func (e *RemoteError) Unwrap() error { return e.sentinel }

// Retryable reports whether the call may be sent again unchanged.
func (e *RemoteError) Retryable() bool { return e.retryable }

// Java exception classes the client handles specially (wire protocol
// reference, section 8).
const (
	excNotServingRegion  = "org.apache.hadoop.hbase.NotServingRegionException"
	excRegionMoved       = "org.apache.hadoop.hbase.exceptions.RegionMovedException"
	excRegionOpening     = "org.apache.hadoop.hbase.exceptions.RegionOpeningException"
	excRegionTooBusy     = "org.apache.hadoop.hbase.RegionTooBusyException"
	excCallQueueTooBig   = "org.apache.hadoop.hbase.CallQueueTooBigException"
	excCallDropped       = "org.apache.hadoop.hbase.CallDroppedException"
	excThrottling        = "org.apache.hadoop.hbase.quotas.RpcThrottlingException"
	excNotRunningYet     = "org.apache.hadoop.hbase.ipc.ServerNotRunningYetException"
	excPleaseHold        = "org.apache.hadoop.hbase.PleaseHoldException"
	excMasterNotRunning  = "org.apache.hadoop.hbase.MasterNotRunningException"
	excRSStopped         = "org.apache.hadoop.hbase.regionserver.RegionServerStoppedException"
	excRSAborted         = "org.apache.hadoop.hbase.regionserver.RegionServerAbortedException"
	excRetryImmediately  = "org.apache.hadoop.hbase.RetryImmediatelyException"
	excResultTooLarge    = "org.apache.hadoop.hbase.MultiActionResultTooLarge"
	excUnknownScanner    = "org.apache.hadoop.hbase.UnknownScannerException"
	excOutOfOrderScanner = "org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException"
	excScannerReset      = "org.apache.hadoop.hbase.exceptions.ScannerResetException"
	excLeaseException    = "org.apache.hadoop.hbase.regionserver.LeaseException"
	excTableNotFound     = "org.apache.hadoop.hbase.TableNotFoundException"
	excTableExists       = "org.apache.hadoop.hbase.TableExistsException"
	excTableNotEnabled   = "org.apache.hadoop.hbase.TableNotEnabledException"
	excTableNotDisabled  = "org.apache.hadoop.hbase.TableNotDisabledException"
	excNoSuchFamily      = "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException"
	excInvalidFamily     = "org.apache.hadoop.hbase.InvalidFamilyOperationException"
	excNamespaceNotFound = "org.apache.hadoop.hbase.NamespaceNotFoundException"
	excNamespaceExists   = "org.apache.hadoop.hbase.NamespaceExistException"
	excConstraint        = "org.apache.hadoop.hbase.constraint.ConstraintException"
	excDoNotRetry        = "org.apache.hadoop.hbase.DoNotRetryIOException"
	excFailedSanityCheck = "org.apache.hadoop.hbase.exceptions.FailedSanityCheckException"
	excRequestTooBig     = "org.apache.hadoop.hbase.exceptions.RequestTooBigException"
	excAccessDenied      = "org.apache.hadoop.hbase.security.AccessDeniedException"
	excUnknownProtocol   = "org.apache.hadoop.hbase.exceptions.UnknownProtocolException"
	excUnsupportedOp     = "java.lang.UnsupportedOperationException"
	excIllegalArgument   = "java.lang.IllegalArgumentException"
	excOperationConflict = "org.apache.hadoop.hbase.exceptions.OperationConflictException"
	excMergeRegion       = "org.apache.hadoop.hbase.exceptions.MergeRegionException"
	excRegionOffline     = "org.apache.hadoop.hbase.client.RegionOfflineException"
	excNoServerForRegion = "org.apache.hadoop.hbase.client.NoServerForRegionException"
	excServerTooBusy     = "org.apache.hadoop.hbase.ipc.ServerTooBusyException"
)

// retryKind says what the client does before retrying a failed call.
type retryKind uint8

const (
	// retryNever: the error goes back to the caller.
	retryNever retryKind = iota
	// retryBackoff: back off, then retry on the same location.
	retryBackoff
	// retryRelocate: drop the cached region location, back off, look the
	// region up again and retry.
	retryRelocate
	// retryMoved: point the cached location at the new server
	// (RegionMovedException) and retry without backoff.
	retryMoved
	// retryNow: resend at once (RetryImmediatelyException).
	retryNow
	// retryOverloaded: back off longer, same location.
	retryOverloaded
	// retryReopenScanner: the scanner is gone; re-open it from the last
	// row returned.
	retryReopenScanner
	// retryConn: the connection broke (or the attempt timed out): the
	// region may have moved too; relocate and back off.
	retryConn
)

// classify tells how to handle err from one attempt.
func classify(err error) retryKind {
	if err == nil {
		return retryNever
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		if errors.Is(err, errAttemptTimeout) {
			return retryConn
		}
		return retryNever
	}
	var re *rpc.RemoteError
	var ce *rpc.ConnError
	switch {
	case errors.As(err, &ce):
		if ce.Retryable() {
			return retryConn
		}
		return retryNever
	case errors.As(err, &re):
		return classifyClass(re.Class, re.DoNotRetry, re.ServerOverloaded)
	case errors.Is(err, errRegionNotReady):
		return retryRelocate
	}
	var he *RemoteError
	if errors.As(err, &he) {
		return classifyClass(he.Class, !he.retryable, false)
	}
	var r Retryable
	if errors.As(err, &r) && r.Retryable() {
		return retryBackoff
	}
	return retryNever
}

func classifyClass(class string, doNotRetry, overloaded bool) retryKind {
	switch class {
	case excRegionMoved:
		return retryMoved
	case excNotServingRegion, excRSStopped, excRSAborted, excRegionOffline, excNoServerForRegion:
		return retryRelocate
	case excRegionOpening, excRegionTooBusy, excThrottling, excNotRunningYet, excPleaseHold,
		excMasterNotRunning:
		return retryBackoff
	case excCallQueueTooBig, excCallDropped, excServerTooBusy:
		return retryOverloaded
	case excRetryImmediately, excResultTooLarge:
		return retryNow
	case excUnknownScanner, excOutOfOrderScanner, excScannerReset, excLeaseException:
		return retryReopenScanner
	}
	if overloaded {
		return retryOverloaded
	}
	if doNotRetry || sentinelFor(class) != nil || isDoNotRetryClass(class) {
		return retryNever
	}
	// Any other IOException: retry with backoff, bounded.
	return retryBackoff
}

// isDoNotRetryClass reports DoNotRetryIOException subclasses (and other
// caller errors) whose do-not-retry flag is not on the wire where they
// appear: in Multi results and failed procedures only the class name is.
func isDoNotRetryClass(class string) bool {
	switch class {
	case excDoNotRetry,
		excFailedSanityCheck,
		excRequestTooBig,
		excAccessDenied,
		excUnknownProtocol,
		excUnsupportedOp,
		excIllegalArgument,
		excOperationConflict,
		excConstraint,
		excMergeRegion,
		"org.apache.hadoop.hbase.UnknownRegionException",
		"org.apache.hadoop.hbase.regionserver.WrongRegionException",
		"org.apache.hadoop.hbase.client.WrongRowIOException",
		"org.apache.hadoop.hbase.regionserver.InvalidMutationDurabilityException",
		"org.apache.hadoop.hbase.quotas.QuotaExceededException",
		"org.apache.hadoop.hbase.quotas.SpaceLimitingException",
		"org.apache.hadoop.hbase.ReplicationPeerNotFoundException",
		"org.apache.hadoop.hbase.snapshot.SnapshotDoesNotExistException",
		"org.apache.hadoop.hbase.coprocessor.CoprocessorException",
		"org.apache.hadoop.hbase.security.visibility.InvalidLabelException",
		"org.apache.hadoop.hbase.io.hfile.CorruptHFileException",
		"org.apache.hadoop.hbase.exceptions.DeserializationException",
		"org.apache.hadoop.hbase.ipc.UnsupportedCompressionCodecException",
		"org.apache.hadoop.hbase.ipc.UnsupportedCellCodecException",
		"org.apache.hadoop.hbase.ipc.FatalConnectionException",
		"org.apache.hadoop.hbase.procedure2.ProcedureAbortedException":
		return true
	}
	return false
}

// sentinelFor maps a Java exception class to a sentinel of errors.go.
func sentinelFor(class string) error {
	switch class {
	case excRequestTooBig:
		return ErrRequestTooLarge
	case excTableNotFound:
		return ErrTableNotFound
	case excTableExists:
		return ErrTableExists
	case excTableNotEnabled:
		return ErrTableDisabled
	case excTableNotDisabled:
		return ErrTableNotDisabled
	case excNoSuchFamily, excInvalidFamily:
		return ErrNoSuchFamily
	case excNamespaceNotFound:
		return ErrNamespaceNotFound
	case excNamespaceExists:
		return ErrNamespaceExists
	}
	return nil
}

// errAttemptTimeout marks the end of one attempt's WithRPCTimeout, as
// opposed to the caller's context.
var errAttemptTimeout = errors.New("hbase: attempt timed out")

// errRegionNotReady: meta has no assigned, open region for the row yet (a
// hole or a region in transition). Retried after relocation.
var errRegionNotReady = &RemoteError{Class: "hbkit.RegionNotReady", Message: "region not assigned or in transition", retryable: true}

// convertError turns an error of one attempt into what callers see: a
// *RemoteError for server exceptions (matching the sentinels), transport
// errors kept as they are (they implement Retryable), contexts unchanged.
func convertError(err error) error {
	if err == nil {
		return nil
	}
	var re *rpc.RemoteError
	var ce *rpc.ConnError
	if errors.As(err, &ce) {
		return err
	}
	if errors.As(err, &re) {
		return remoteErrorFromClass(re.Class, re.Message, re.DoNotRetry, re.ServerOverloaded)
	}
	return err
}

// remoteErrorFromClass builds a *RemoteError; message is the exception
// message (the stack trace, if any, is cut off).
func remoteErrorFromClass(class, message string, doNotRetry, overloaded bool) *RemoteError {
	if i := strings.Index(message, "\n\tat "); i >= 0 {
		message = message[:i]
	}
	if rest, ok := strings.CutPrefix(message, class); ok {
		message = strings.TrimPrefix(rest, ":")
	}
	message = redactRows(strings.TrimSpace(message))
	e := &RemoteError{Class: class, Message: message, sentinel: sentinelFor(class)}
	if e.sentinel == nil && cellTooLarge.MatchString(message) {
		e.sentinel = ErrCellTooLarge
	}
	// HBase 2.6.4 refuses a request over hbase.ipc.max.request.size with
	// a DoNotRetryIOException saying so (TestIntegrationServerRequestLimit).
	if e.sentinel == nil && strings.Contains(message, `"hbase.ipc.max.request.size"`) {
		e.sentinel = ErrRequestTooLarge
	}
	// "Field is not a long" is how HBase rejects an Increment of a value
	// that is not 8 bytes.
	if e.sentinel == nil && strings.Contains(message, "Field is not a long") {
		e.sentinel = ErrNotCounter
	}
	if e.sentinel == nil && class == excConstraint && strings.Contains(message, "non empty namespace") {
		e.sentinel = ErrNamespaceNotEmpty
	}
	kind := classifyClass(class, doNotRetry, overloaded)
	e.retryable = kind != retryNever && kind != retryReopenScanner
	return e
}

// Server messages quote row keys, which hold what users keep private
// (phone numbers): in a cell ("Cell[row/f:q/ts/Put/vlen=3/seqid=0] with
// size 10485785 exceeds limit of 10485760 bytes"), a region name
// ("t,startkey,1700000000000.0123456789abcdef0123456789abcdef."), or a
// named key (row='...', startKey='...'). redactRows replaces each with
// "…", keeping the rest of the message.
var (
	cellTooLarge  = regexp.MustCompile(`Cell\[…\] with size \d+ exceeds limit of \d+ bytes`)
	cellInMessage = regexp.MustCompile(`Cell\[.*?/seqid=\d+\]`)
	cellWithSize  = regexp.MustCompile(`Cell\[.*?\] with size`)
	regionName    = regexp.MustCompile(`([^\s,]+),.*?,(\d+)\.([0-9a-f]{32})\.`)
	namedKey      = regexp.MustCompile(`(?i)\b(row|startKey|endKey|getStartKey\(\)|getEndKey\(\))=('.*?'|\S*)(,\s|\s|$)`)
)

func redactRows(message string) string {
	if !strings.ContainsAny(message, "[,=") {
		return message
	}
	message = cellInMessage.ReplaceAllString(message, "Cell[…]")
	message = cellWithSize.ReplaceAllString(message, "Cell[…] with size")
	message = regionName.ReplaceAllString(message, "$1,…,$2.$3.")
	return namedKey.ReplaceAllString(message, "$1=…$3")
}

// movedTo returns the new location carried by a RegionMovedException.
func movedTo(err error) (string, bool) {
	var re *rpc.RemoteError
	if errors.As(err, &re) && re.Class == excRegionMoved && re.Hostname != "" && re.Port > 0 {
		return net.JoinHostPort(re.Hostname, strconv.Itoa(int(re.Port))), true
	}
	return "", false
}

// errorType is the error.type attribute of a failed call's span and
// metrics: the Java class for server exceptions, a short Go name
// otherwise.
func errorType(err error) string {
	var he *RemoteError
	var re *rpc.RemoteError
	var ce *rpc.ConnError
	var ie *InvalidRequestError
	var be *BatchError
	switch {
	case errors.As(err, &be):
		return "hbase.BatchError"
	case errors.As(err, &he):
		return he.Class
	case errors.As(err, &re):
		return re.Class
	case errors.As(err, &ce):
		return "hbase.ConnectionError"
	case errors.As(err, &ie):
		return "hbase.InvalidRequestError"
	case errors.Is(err, context.DeadlineExceeded):
		return "context.DeadlineExceeded"
	case errors.Is(err, context.Canceled):
		return "context.Canceled"
	case errors.Is(err, ErrClosed):
		return "hbase.ErrClosed"
	case errors.Is(err, ErrTableNotFound):
		return "hbase.ErrTableNotFound"
	case errors.Is(err, ErrTableDisabled):
		return "hbase.ErrTableDisabled"
	}
	return fmt.Sprintf("%T", err)
}
