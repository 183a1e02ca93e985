package hbase

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/hbkit/hbkit/internal/buildinfo"
	"github.com/hbkit/hbkit/internal/rpc"
)

// instrumentationName names the client's tracer and meter: the package's
// import path; their version is hbkit's (buildinfo).
const instrumentationName = "github.com/hbkit/hbkit/hbase"

// Attribute keys of the OpenTelemetry database semantic conventions, from
// the semconv package.
const (
	attrDBSystem      = semconv.DBSystemNameKey
	attrDBNamespace   = semconv.DBNamespaceKey
	attrDBCollection  = semconv.DBCollectionNameKey
	attrDBOperation   = semconv.DBOperationNameKey
	attrDBStatusCode  = semconv.DBResponseStatusCodeKey
	attrServerAddress = semconv.ServerAddressKey
	attrServerPort    = semconv.ServerPortKey
	attrErrorType     = semconv.ErrorTypeKey
	attrBatchSize     = semconv.DBOperationBatchSizeKey
)

// operationNames maps the client's internal operation names to the ones
// HBase's Java client puts in db.operation.name and span names
// (HBaseSemanticAttributes.Operation: GET, PUT, DELETE, SCAN, APPEND,
// INCREMENT, CHECK_AND_MUTATE, BATCH; a RowMutations is a BATCH there), so
// a fleet running both clients gets one series per operation. Admin calls
// follow the same style (CREATE_TABLE). The data calls, which run on the
// hot path, are listed so that naming them allocates nothing.
var operationNames = map[string]string{
	"get": "GET", "put": "PUT", "delete": "DELETE", "scan": "SCAN",
	"append": "APPEND", "increment": "INCREMENT", "check_and_mutate": "CHECK_AND_MUTATE",
	"batch": "BATCH", "mutate_row": "BATCH",
}

// operationName returns the db.operation.name of the internal name op:
// the data calls' from operationNames, the others (admin calls) in upper
// case.
func operationName(op string) string {
	if n, ok := operationNames[op]; ok {
		return n
	}
	return strings.ToUpper(op)
}

type telemetry struct {
	tracer   trace.Tracer
	duration metric.Float64Histogram
	retries  metric.Int64Counter
}

func newTelemetry(o *options) (*telemetry, error) {
	tp := o.tracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	mp := o.meterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	t := &telemetry{tracer: tp.Tracer(instrumentationName, trace.WithInstrumentationVersion(buildinfo.Version()))}
	meter := mp.Meter(instrumentationName, metric.WithInstrumentationVersion(buildinfo.Version()))
	var err error
	t.duration, err = meter.Float64Histogram("db.client.operation.duration",
		metric.WithDescription("Duration of HBase client operations, retries included."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10))
	if err != nil {
		return nil, err
	}
	t.retries, err = meter.Int64Counter("hbase.client.retries",
		metric.WithDescription("Retries of HBase client operations, by operation and error type."),
		metric.WithUnit("{retry}"))
	if err != nil {
		return nil, err
	}
	return t, nil
}

// op is one traced client operation: a span plus its latency and retry
// metrics. Operations never record row keys or values.
type op struct {
	t     *telemetry
	span  trace.Span
	start time.Time
	name  string
	label string               // the span's name
	attrs []attribute.KeyValue // common to span and metrics

	mu     sync.Mutex // setServer may be called from a batch's goroutines
	server string     // guarded by mu
}

// startOp starts the span "{OPERATION} {table}" (or "{OPERATION}" when
// table is empty). operation is the client's internal lower-case name
// ("get", "put", "scan", "batch", "create_table"...); the span and
// db.operation.name carry it as HBase's Java client names it
// (operationName: GET, PUT, SCAN, BATCH, CREATE_TABLE...).
func (c *Client) startOp(ctx context.Context, operation, table string) (context.Context, *op) {
	o := &op{t: c.tel, start: time.Now(), name: operation}
	operation = operationName(operation)
	o.attrs = append(make([]attribute.KeyValue, 0, 4), semconv.DBSystemNameHBase, attrDBOperation.String(operation))
	if table != "" {
		if tn, err := ParseTableName(table); err == nil {
			o.attrs = append(o.attrs, attrDBNamespace.String(tn.Namespace), attrDBCollection.String(tn.String()))
		}
	}
	name := operation
	if table != "" {
		name += " " + table
	}
	o.label = name
	ctx, o.span = c.tel.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(o.attrs...))
	return context.WithValue(ctx, opKey{}, o), o
}

type opKey struct{}

// spanFromContext returns the operation started by startOp on ctx, or nil
// (every method of *op accepts nil).
func spanFromContext(ctx context.Context) *op {
	o, _ := ctx.Value(opKey{}).(*op)
	return o
}

// setServer records the region server or master the operation talked to
// (the last one, when it was retried elsewhere).
func (o *op) setServer(addr string) {
	if o == nil || addr == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if addr == o.server {
		return
	}
	o.server = addr
	host, port := splitHostPort(addr)
	o.span.SetAttributes(attrServerAddress.String(host))
	if port > 0 {
		o.span.SetAttributes(attrServerPort.Int(port))
	}
}

// retried counts one retry of the operation.
func (o *op) retried(ctx context.Context, reason string) {
	if o == nil {
		return
	}
	o.span.AddEvent("retry", trace.WithAttributes(attrErrorType.String(reason)))
	o.t.retries.Add(ctx, 1, metric.WithAttributes(append(o.attrs[:len(o.attrs):len(o.attrs)], attrErrorType.String(reason))...))
}

// end finishes the span and records the latency; err is the call's
// result.
func (o *op) end(ctx context.Context, err error) {
	if o == nil {
		return
	}
	attrs := o.attrs
	o.mu.Lock()
	server := o.server
	o.mu.Unlock()
	if server != "" {
		host, _ := splitHostPort(server)
		attrs = append(attrs[:len(attrs):len(attrs)], attrServerAddress.String(host))
	}
	if err != nil {
		et := errorType(err)
		attrs = append(attrs[:len(attrs):len(attrs)], attrErrorType.String(et))
		o.span.SetAttributes(attrErrorType.String(et))
		if code := statusCode(err); code != "" {
			// The server answered: its exception class is HBase's
			// response code.
			attrs = append(attrs, attrDBStatusCode.String(code))
			o.span.SetAttributes(attrDBStatusCode.String(code))
		}
		// The description is the error type, not the message: server
		// messages can quote row keys.
		o.span.SetStatus(codes.Error, et)
	}
	if l, ok := ctx.Value(opLogKey{}).(*opLog); ok {
		l.add(o.label, time.Since(o.start), err != nil)
	}
	o.t.duration.Record(context.WithoutCancel(ctx), time.Since(o.start).Seconds(), metric.WithAttributes(attrs...))
	o.span.End()
}

// statusCode is db.response.status_code of a failed call: the Java class
// of the exception a server answered with (HBase's RPC answers carry no
// other code), or "" when no server answered (a lost connection, a
// deadline, a request refused before it was sent).
func statusCode(err error) string {
	var he *RemoteError
	var re *rpc.RemoteError
	switch {
	case errors.As(err, &he):
		return he.Class
	case errors.As(err, &re):
		return re.Class
	}
	return ""
}
