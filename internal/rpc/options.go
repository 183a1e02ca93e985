package rpc

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
)

// DialFunc opens a network connection, like net.Dialer.DialContext. Use it
// to map the addresses HBase advertises (in ZooKeeper and hbase:meta) to
// reachable ones, or to dial through a tunnel.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// ClientVersion is the HBase version hbkit claims in the ConnectionHeader.
// Servers enable RetryImmediatelyException, MultiActionResultTooLarge and
// RequestTooBigException handling only for clients that claim a recent
// enough version.
const (
	ClientVersion      = "2.6.0"
	clientVersionMajor = 2
	clientVersionMinor = 6
)

// Service names for ConnectionHeader.service_name.
const (
	ClientService     = "ClientService"
	MasterService     = "MasterService"
	AdminService      = "AdminService"
	ClientMetaService = "ClientMetaService"
)

// Option configures Dial and NewPool.
type Option func(*options)

type options struct {
	dial         DialFunc
	user         string
	maxFrameSize int
	writeTimeout time.Duration
	codec        string
	kerberos     *Kerberos   // WithKerberos; nil: SIMPLE
	tls          *tls.Config // WithTLS; nil: plain TCP
	reuseMin     int         // WithFrameReuseMin
}

func defaultOptions() options {
	d := &net.Dialer{KeepAlive: 30 * time.Second}
	return options{
		dial:         d.DialContext,
		maxFrameSize: DefaultMaxFrameSize,
		reuseMin:     FrameReuseMin,
	}
}

func (o *options) validate() error {
	if o.dial == nil {
		return errors.New("rpc: nil dial function")
	}
	if o.maxFrameSize < 64 {
		return fmt.Errorf("rpc: max frame size %d is too small", o.maxFrameSize)
	}
	if o.writeTimeout < 0 {
		return fmt.Errorf("rpc: negative write timeout %v", o.writeTimeout)
	}
	if o.reuseMin < 64 {
		return fmt.Errorf("rpc: frame reuse minimum %d is below 64 bytes", o.reuseMin)
	}
	if o.kerberos != nil {
		if err := o.kerberos.validate(); err != nil {
			return err
		}
		if o.user == "" {
			// HBase takes an effective user other than the
			// authenticated principal as a proxy-user request.
			o.user = o.kerberos.userName()
		}
	}
	if o.user == "" {
		o.user = currentUser()
	}
	return nil
}

func buildOptions(opts []Option) (options, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return options{}, err
	}
	return o, nil
}

// currentUser returns the OS user name, the identity HBase trusts with
// SIMPLE authentication.
func currentUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "hbkit"
}

// WithDialFunc replaces the function that opens TCP connections (default: a
// net.Dialer with 30s keep-alive). The address passed is the one the caller
// asked for, typically what HBase advertises.
func WithDialFunc(f DialFunc) Option { return func(o *options) { o.dial = f } }

// WithUser sets UserInformation.effective_user (default: the OS user).
func WithUser(name string) Option { return func(o *options) { o.user = name } }

// WithMaxFrameSize bounds the size of a response frame (default
// DefaultMaxFrameSize). A larger frame breaks the connection.
func WithMaxFrameSize(n int) Option { return func(o *options) { o.maxFrameSize = n } }

// WithFrameReuseMin sets the smallest response frame read into the buffer
// its call offered (WithFrameBuffer); default FrameReuseMin, at least 64.
// Tests lower it to reuse the small frames of fake servers.
func WithFrameReuseMin(n int) Option { return func(o *options) { o.reuseMin = n } }

// WithWriteTimeout bounds how long one write to the socket may block before
// the connection is declared stalled (a *ConnError wrapping ErrConnStalled;
// default 0: no bound, callers still return when their context ends). A
// write blocks when the server stopped reading and the socket buffers are
// full.
func WithWriteTimeout(d time.Duration) Option { return func(o *options) { o.writeTimeout = d } }

// WithCellBlockCodec asks the server to send cells in a trailing cell block
// encoded with the named Java codec, e.g.
// "org.apache.hadoop.hbase.codec.KeyValueCodec" (see internal/cellblock).
// By default no codec is sent and every cell is inline in the protobuf
// response. Requests are always sent inline.
func WithCellBlockCodec(class string) Option { return func(o *options) { o.codec = class } }

func (o *options) connectionHeader(service string) *pb.ConnectionHeader {
	h := &pb.ConnectionHeader{
		UserInfo:    &pb.UserInformation{EffectiveUser: proto.String(o.user)},
		ServiceName: proto.String(service),
		VersionInfo: &pb.VersionInfo{
			Version:      proto.String(ClientVersion),
			Url:          proto.String("https://github.com/hbkit/hbkit"),
			Revision:     proto.String("hbkit"),
			User:         proto.String("hbkit"),
			Date:         proto.String("2026-11-22"),
			SrcChecksum:  proto.String("hbkit"),
			VersionMajor: proto.Uint32(clientVersionMajor),
			VersionMinor: proto.Uint32(clientVersionMinor),
		},
	}
	if o.codec != "" {
		h.CellBlockCodecClass = proto.String(o.codec)
	}
	return h
}

// CallOption adjusts one call.
type CallOption func(*callOptions)

type callOptions struct {
	priority  uint32
	cellBlock *[]byte
	message   *[]byte
	into      []byte  // WithFrameBuffer's buffer
	frame     *[]byte // WithFrameBuffer's destination
	head      func(msg []byte)
	check     func() error
}

// Request priorities (HConstants' QoS levels) for WithPriority.
const (
	PriorityNormal = 0
	PriorityAdmin  = 100
	// PriorityHigh is what the Java client uses for hbase:meta and other
	// system tables.
	PriorityHigh = 200
)

// WithPriority sets RequestHeader.priority (PriorityNormal, PriorityAdmin,
// PriorityHigh). Unset, the server derives it from the request.
func WithPriority(p uint32) CallOption { return func(c *callOptions) { c.priority = p } }

// WithCellBlock stores the response's cell block (nil when there is none) in
// *dst. Only connections created WithCellBlockCodec receive cell blocks.
func WithCellBlock(dst *[]byte) CallOption { return func(c *callOptions) { c.cellBlock = dst } }

// WithMessage stores the response's message as it came, encoded, in
// *dst, for a check (WithCheck) of what decoding does not keep, such as
// how a bool was encoded. Like the cell block, it aliases the frame.
func WithMessage(dst *[]byte) CallOption { return func(c *callOptions) { c.message = dst } }

// WithFrameBuffer offers buf (maybe nil) for the response: a response
// frame of at least FrameReuseMin bytes (WithFrameReuseMin) is read into
// buf's array when it fits in cap(buf), and otherwise into a new one with
// a quarter more room, for the next call to offer. When the call gets an
// answer (a response or a remote exception), *frame is set to the frame,
// which the response's message and cell block alias.
//
// buf belongs to the call from then on: the caller may use it again once
// the call has returned with *frame set, through *frame if the frame was
// read into buf's array, as buf otherwise. A call that returns no answer
// (a broken connection, a context ended while waiting) may still have
// its buffer written by the connection's reader: the caller must let go
// of it.
func WithFrameBuffer(buf []byte, frame *[]byte) CallOption {
	return func(c *callOptions) { c.into, c.frame = buf, frame }
}

// WithHead has fn called with the response's message as soon as it has
// arrived, before the rest of a large frame (its cell block) is read:
// the server is done with the call by then. It is called at most once
// per attempt, only for a frame of at least the connection's
// WithFrameReuseMin bytes (FrameReuseMin by default) whose header and
// message fit its read buffer (64 KiB), and not for a remote exception.
// fn runs on the connection's reader: it must return quickly and must not
// call on the connection; msg is valid only until it returns. The call's
// outcome is still what Call returns.
func WithHead(fn func(msg []byte)) CallOption { return func(c *callOptions) { c.head = fn } }

// WithCheck has fn called once the answer is decoded (into the response
// message, and the cell block stored by WithCellBlock): fn checks what the
// caller knows the answer must say, such as the row it asked for, and
// usually decodes the cell block on the way. An error from fn means the
// answer was corrupted on the way: the call fails with a retryable
// *CorruptError wrapping fn's error (see ErrCorruptAnswer). fn is not
// called for a remote exception.
func WithCheck(fn func() error) CallOption { return func(c *callOptions) { c.check = fn } }
