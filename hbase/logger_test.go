package hbase

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// recorder is a slog.Handler that keeps the records it is given.
type recorder struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec.Clone())
	return nil
}
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

// find returns the attributes of the first record whose message holds
// msg, as text, and whether there was one.
func (r *recorder) find(msg string) (map[string]string, slog.Level, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rec := range r.recs {
		if strings.Contains(rec.Message, msg) {
			attrs := map[string]string{}
			rec.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
			return attrs, rec.Level, true
		}
	}
	return nil, 0, false
}

// setHook sets fc.hook under fc.mu.
func setHook(fc *fakeCluster, f func(addr, method string, req proto.Message) *pb.ExceptionResponse) {
	fc.set(func() { fc.hook = f })
}

// TestLoggerEvents (issue 36, item 4): each event WithLogger promises is
// logged once it happens, with its level and attributes, and no record
// holds a row key.
func TestLoggerEvents(t *testing.T) {
	const row = "row-13800138000" // a phone number: must not reach the log
	tests := []struct {
		name  string
		setup func(fc *fakeCluster) []Option
		call  func(ctx context.Context, c *Client) error
		msg   string
		level slog.Level
		attrs map[string]string
	}{
		{"region moved", func(fc *fakeCluster) []Option {
			var once sync.Once
			setHook(fc, func(addr, method string, req proto.Message) *pb.ExceptionResponse {
				var exc *pb.ExceptionResponse
				if method != "Get" {
					return nil
				}
				once.Do(func() {
					exc = &pb.ExceptionResponse{ExceptionClassName: proto.String(excRegionMoved),
						Hostname: proto.String("rs2"), Port: proto.Int32(16020), StackTrace: proto.String("moved")}
					fc.move("", "rs2:16020")
				})
				return exc
			})
			return nil
		}, func(ctx context.Context, c *Client) error {
			_, err := c.Get(ctx, &Get{Table: "t", Row: []byte(row)})
			return err
		}, "region moved", slog.LevelInfo, map[string]string{"table": "t", "from": "rs1:16020", "to": "rs2:16020"}},
		{"location dropped", func(fc *fakeCluster) []Option {
			var once sync.Once
			setHook(fc, func(addr, method string, req proto.Message) *pb.ExceptionResponse {
				var exc *pb.ExceptionResponse
				if method != "Get" {
					return nil
				}
				once.Do(func() { exc = masterException(excNotServingRegion, "not here", false) })
				return exc
			})
			return nil
		}, func(ctx context.Context, c *Client) error {
			_, err := c.Get(ctx, &Get{Table: "t", Row: []byte(row)})
			return err
		}, "region location dropped", slog.LevelDebug, map[string]string{"table": "t", "server": "rs1:16020"}},
		{"retries exhausted", func(fc *fakeCluster) []Option {
			setHook(fc, func(addr, method string, req proto.Message) *pb.ExceptionResponse {
				if method == "Get" {
					return masterException(excRegionTooBusy, "busy", false)
				}
				return nil
			})
			return []Option{WithMaxRetries(1)}
		}, func(ctx context.Context, c *Client) error {
			_, err := c.Get(ctx, &Get{Table: "t", Row: []byte(row)})
			if err == nil {
				t.Error("Get on a busy region succeeded")
			}
			return nil
		}, "retries exhausted", slog.LevelWarn, map[string]string{"retries": "1"}},
		{"operation timeout", func(fc *fakeCluster) []Option {
			fc.set(func() { fc.hang = true })
			return []Option{WithOperationTimeout(300 * time.Millisecond), WithRPCTimeout(100 * time.Millisecond)}
		}, func(ctx context.Context, c *Client) error {
			if _, err := c.Get(ctx, &Get{Table: "t", Row: []byte(row)}); err == nil {
				t.Error("Get on a hung server succeeded")
			}
			return nil
		}, "operation timeout", slog.LevelWarn, map[string]string{"timeout": "300ms"}},
		{"lease renewal failed", func(fc *fakeCluster) []Option {
			fc.load(fakeRows(10)...)
			setHook(fc, func(addr, method string, req proto.Message) *pb.ExceptionResponse {
				if sr, ok := req.(*pb.ScanRequest); ok && sr.GetRenew() {
					return masterException(excUnknownScanner, "gone", false)
				}
				return nil
			})
			return []Option{WithScannerLeaseRenewal(10 * time.Millisecond)}
		}, func(ctx context.Context, c *Client) error {
			sc, err := c.Scan(ctx, &Scan{Table: "t", Caching: 2})
			if err != nil {
				return err
			}
			defer sc.Close()
			sc.Next()
			time.Sleep(80 * time.Millisecond) // a slow consumer
			return nil
		}, "lease renewal failed", slog.LevelWarn, map[string]string{"table": "t", "server": "rs1:16020"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := newFakeCluster(t, nil, 2)
			rec := &recorder{}
			opts := tt.setup(fc)
			c := fc.client(append(opts, WithLogger(slog.New(rec)))...)
			if err := tt.call(testCtx(t), c); err != nil {
				t.Fatal(err)
			}
			attrs, level, ok := rec.find(tt.msg)
			if !ok {
				t.Fatalf("no record saying %q; got %d records", tt.msg, len(rec.recs))
			}
			if level != tt.level {
				t.Errorf("level %v, want %v", level, tt.level)
			}
			for k, v := range tt.attrs {
				if attrs[k] != v {
					t.Errorf("attribute %s = %q, want %q (all: %v)", k, attrs[k], v, attrs)
				}
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			for _, r := range rec.recs {
				text := r.Message
				r.Attrs(func(a slog.Attr) bool { text += " " + a.Value.String(); return true })
				if strings.Contains(text, row) || strings.Contains(text, "13800138000") {
					t.Errorf("a record holds the row key: %s", text)
				}
			}
		})
	}
}

// Without WithLogger nothing is logged, and nothing breaks.
func TestLoggerSilentByDefault(t *testing.T) {
	fc := newFakeCluster(t, nil, 1)
	fc.set(func() { fc.hang = true })
	c := fc.client(WithOperationTimeout(100*time.Millisecond), WithRPCTimeout(50*time.Millisecond))
	if _, err := c.Get(testCtx(t), &Get{Table: "t", Row: []byte("r")}); err == nil {
		t.Error("Get on a hung server succeeded")
	}
	if c.opts.logger != nil {
		t.Errorf("a logger without WithLogger")
	}
}
