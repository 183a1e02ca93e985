package rpc

import (
	"bufio"
	"context"
	"crypto/hmac"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/crypto/etype"
	"github.com/jcmturner/gokrb5/v8/iana/chksumtype"
	"github.com/jcmturner/gokrb5/v8/iana/errorcode"
	"github.com/jcmturner/gokrb5/v8/krberror"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// Protection is the SASL quality of protection of a Kerberos connection,
// HBase's hbase.rpc.protection.
type Protection int

const (
	// ProtectionAuthentication ("authentication", SASL "auth"): the
	// client and server prove who they are; frames travel as they are.
	ProtectionAuthentication Protection = iota
	// ProtectionIntegrity ("integrity", "auth-int"): every frame carries a
	// keyed checksum.
	ProtectionIntegrity
	// ProtectionPrivacy ("privacy", "auth-conf"): every frame is encrypted.
	ProtectionPrivacy
)

// ParseProtection parses HBase's names for hbase.rpc.protection:
// authentication, integrity or privacy.
func ParseProtection(s string) (Protection, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "authentication", "auth":
		return ProtectionAuthentication, nil
	case "integrity", "auth-int":
		return ProtectionIntegrity, nil
	case "privacy", "auth-conf":
		return ProtectionPrivacy, nil
	}
	return 0, fmt.Errorf("rpc: unknown protection %q: want authentication, integrity or privacy", s)
}

func (p Protection) String() string {
	switch p {
	case ProtectionAuthentication:
		return "authentication"
	case ProtectionIntegrity:
		return "integrity"
	case ProtectionPrivacy:
		return "privacy"
	}
	return fmt.Sprintf("Protection(%d)", int(p))
}

// layer is the RFC 4752 security layer bit of p.
func (p Protection) layer() byte {
	switch p {
	case ProtectionIntegrity:
		return 2
	case ProtectionPrivacy:
		return 4
	}
	return 1
}

// Kerberos configures SASL GSSAPI (Kerberos) authentication for WithKerberos.
type Kerberos struct {
	// Client is a gokrb5 client holding the user's credentials (from a
	// keytab or a credentials cache). It logs in on first use.
	Client *client.Client
	// ServerPrincipal is the servers' principal, as HBase's
	// hbase.regionserver.kerberos.principal: "hbase/_HOST@REALM", where
	// _HOST stands for the host of the address dialled, or a fixed
	// "hbase/host@REALM".
	ServerPrincipal string
	// Protection is the quality of protection asked for; the server must
	// offer it (hbase.rpc.protection).
	Protection Protection
}

// Errors of the Kerberos handshake. Each is wrapped in an *AuthError, and
// that in the *ConnError of the failed dial.
var (
	// ErrNoCredentials: the client has no usable credentials: no keytab
	// entry for its principal, an expired ticket in its cache, or a KDC
	// that refused its login (unknown or revoked principal, wrong
	// password or key, expired key, clock skew).
	ErrNoCredentials = errors.New("rpc: kerberos: no valid credentials")
	// ErrServiceTicket: the KDC refused a ticket for the server's
	// principal (unknown, expired or revoked principal).
	ErrServiceTicket = errors.New("rpc: kerberos: no service ticket for the server principal")
	// ErrKDCUnavailable: the KDC could not be reached, did not answer in
	// time, or said it is unavailable. Unlike the others it is
	// retryable: a new connection may find the KDC back.
	ErrKDCUnavailable = errors.New("rpc: kerberos: KDC unavailable")
	// ErrAuthRefused: the server refused the authentication (it sent an
	// error: wrong principal, clock skew, a key it cannot decrypt with).
	ErrAuthRefused = errors.New("rpc: kerberos: server refused authentication")
	// ErrServerNotSecured: the server does not speak Kerberos (it asked
	// to fall back to SIMPLE).
	ErrServerNotSecured = errors.New("rpc: kerberos: server does not accept kerberos")
	// ErrProtectionMismatch: the server does not offer the quality of
	// protection asked for.
	ErrProtectionMismatch = errors.New("rpc: kerberos: quality of protection not offered by the server")
	// ErrBadToken: the server sent a SASL or GSS-API token that does not
	// verify or decode.
	ErrBadToken = errors.New("rpc: kerberos: bad token from server")
)

// AuthError is a failed SASL handshake. Err wraps one of the Err*
// sentinels above; Class and Message are set when the server sent an
// exception.
type AuthError struct {
	Principal string // the server principal asked for
	Class     string // Java exception class from the server, if any
	Message   string
	Err       error
}

func (e *AuthError) Error() string {
	s := fmt.Sprintf("kerberos handshake with %s: %v", e.Principal, e.Err)
	if e.Class != "" {
		s += ": " + e.Class
		if e.Message != "" {
			s += ": " + e.Message
		}
	}
	return s
}

func (e *AuthError) Unwrap() error { return e.Err }

// Retryable reports whether a new connection may succeed: not when the
// handshake failed for one of the reasons above (credentials, principal,
// protection, a server refusing or not speaking Kerberos), only when the
// KDC was unavailable (ErrKDCUnavailable) or the connection broke during
// it.
func (e *AuthError) Retryable() bool {
	if errors.Is(e.Err, ErrKDCUnavailable) {
		return true
	}
	for _, s := range []error{ErrNoCredentials, ErrServiceTicket, ErrAuthRefused, ErrServerNotSecured, ErrProtectionMismatch, ErrBadToken} {
		if errors.Is(e.Err, s) {
			return false
		}
	}
	return true
}

// WithKerberos authenticates every connection with SASL GSSAPI (HBase's
// KERBEROS auth method) instead of SIMPLE. The ConnectionHeader then
// names the client's principal as the effective user.
func WithKerberos(k Kerberos) Option {
	return func(o *options) { o.kerberos = &k }
}

func (k *Kerberos) validate() error {
	if k.Client == nil {
		return errors.New("rpc: WithKerberos: nil client")
	}
	if k.ServerPrincipal == "" || !strings.Contains(k.ServerPrincipal, "/") {
		return fmt.Errorf("rpc: WithKerberos: server principal %q: want service/host[@REALM]", k.ServerPrincipal)
	}
	if k.Protection < ProtectionAuthentication || k.Protection > ProtectionPrivacy {
		return fmt.Errorf("rpc: WithKerberos: invalid protection %d", int(k.Protection))
	}
	return nil
}

// userName is the client's principal, user@REALM.
func (k *Kerberos) userName() string {
	c := k.Client.Credentials
	return c.CName().PrincipalNameString() + "@" + c.Domain()
}

// principalFor is the server principal for addr, _HOST replaced by its
// host, without the realm (the krb5.conf's domain_realm maps the host).
func (k *Kerberos) principalFor(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	p := strings.ReplaceAll(k.ServerPrincipal, "_HOST", strings.ToLower(host))
	p, _, _ = strings.Cut(p, "@")
	return p
}

// kerberosPreamble is the connection preamble for auth method 81
// (KERBEROS).
var kerberosPreamble = [6]byte{'H', 'B', 'a', 's', 0, 0x51}

// saslSwitchToSimple is the length HBase sends instead of a token to tell
// the client to fall back to SIMPLE authentication.
const saslSwitchToSimple = -88

// gssKrb5OID is the DER encoding of the Kerberos v5 GSS-API mechanism,
// 1.2.840.113554.1.2.2.
var gssKrb5OID = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02}

// GSS-API context flags (RFC 2744) asked for in the authenticator's
// checksum: integrity and confidentiality, so that the server allows
// every security layer.
const (
	gssConfFlag  = 16
	gssIntegFlag = 32
)

// saslHandshake runs the KERBEROS handshake on nc: the preamble, the
// GSS-API initial token, the RFC 4752 security-layer exchange. It returns
// the connection to send the ConnectionHeader and all frames on: nc itself
// for authentication, a wrapping connection for integrity and privacy.
// When plain (no TLS) and the server closes nc before sending a byte, the
// error wraps errClosedUnanswered.
func (k *Kerberos) saslHandshake(ctx context.Context, nc net.Conn, addr string, maxFrame int, plain bool) (net.Conn, error) {
	spn := k.principalFor(addr)
	fail := func(err error) error { return &AuthError{Principal: spn, Err: err} }
	tkt, key, err := k.serviceTicket(ctx, spn)
	if err != nil {
		return nil, fail(err)
	}
	auth, err := types.NewAuthenticator(k.Client.Credentials.Domain(), k.Client.Credentials.CName())
	if err != nil {
		return nil, fail(err)
	}
	cksum := make([]byte, 24)
	binary.LittleEndian.PutUint32(cksum[:4], 16) // channel bindings length: none
	binary.LittleEndian.PutUint32(cksum[20:], gssConfFlag|gssIntegFlag)
	auth.Cksum = types.Checksum{CksumType: chksumtype.GSSAPI, Checksum: cksum}
	apReq, err := messages.NewAPReq(tkt, key, auth)
	if err != nil {
		return nil, fail(err)
	}
	apBytes, err := apReq.Marshal()
	if err != nil {
		return nil, fail(err)
	}
	gss, err := newGSSContext(key, uint64(auth.SeqNumber))
	if err != nil {
		return nil, fail(err)
	}

	if d, ok := ctx.Deadline(); ok {
		nc.SetDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	defer func() {
		stop()
		nc.SetDeadline(time.Time{})
	}()
	out := append([]byte(nil), kerberosPreamble[:]...)
	out = appendSASLToken(out, gssInitialToken(apBytes))
	if _, err := nc.Write(out); err != nil {
		return nil, ctxOr(ctx, err)
	}
	cr := &countingReader{r: nc}
	br := bufio.NewReader(cr)
	challenge, err := readSASLChallenge(br)
	if err != nil {
		var ae *AuthError
		if errors.As(err, &ae) {
			ae.Principal = spn
			return nil, ae
		}
		if err = ctxOr(ctx, err); plain && cr.n == 0 && closedByPeer(err) {
			err = fmt.Errorf("%w: %w", errClosedUnanswered, err)
		}
		return nil, fail(err)
	}
	// The server accepted the context (no mutual authentication asked) and
	// offers its security layers: [layers][max buffer, 3 bytes], wrapped.
	offer, err := gss.unwrap(challenge)
	if err != nil {
		return nil, fail(err)
	}
	if len(offer) != 4 {
		return nil, fail(fmt.Errorf("%w: security layer offer of %d bytes", ErrBadToken, len(offer)))
	}
	want := k.Protection.layer()
	if offer[0]&want == 0 {
		return nil, fail(fmt.Errorf("%w: asked for %v, server offers %s", ErrProtectionMismatch, k.Protection, layerNames(offer[0])))
	}
	serverMax := int(offer[1])<<16 | int(offer[2])<<8 | int(offer[3])
	reply := []byte{want, 0, 0, 0}
	if want != 1 {
		// Our receive buffer: the largest token saslConn accepts.
		n := min(saslMaxToken(maxFrame), 0xffffff)
		reply[1], reply[2], reply[3] = byte(n>>16), byte(n>>8), byte(n)
	}
	tok, err := gss.wrap(reply, false)
	if err != nil {
		return nil, fail(err)
	}
	if _, err := nc.Write(appendSASLToken(nil, tok)); err != nil {
		return nil, fail(ctxOr(ctx, err))
	}
	if br.Buffered() > 0 {
		return nil, fail(fmt.Errorf("%w: %d unexpected bytes after the handshake", ErrBadToken, br.Buffered()))
	}
	if want == 1 {
		return nc, nil
	}
	return newSASLConn(nc, gss, want == 4, serverMax, maxFrame), nil
}

// serviceTicket logs in (when the client holds no valid TGT) and gets the
// ticket for spn (when none is cached), mapping gokrb5's errors with
// kdcError. gokrb5 takes no context, so it runs in a goroutine that ctx
// stops waiting for; gokrb5 bounds each KDC exchange itself (5 s).
func (k *Kerberos) serviceTicket(ctx context.Context, spn string) (messages.Ticket, types.EncryptionKey, error) {
	type result struct {
		tkt messages.Ticket
		key types.EncryptionKey
		err error
	}
	ch := make(chan result, 1)
	go func() {
		if err := k.Client.AffirmLogin(); err != nil {
			ch <- result{err: kdcError(true, err)}
			return
		}
		tkt, key, err := k.Client.GetServiceTicket(spn)
		if err != nil {
			err = kdcError(false, err)
		}
		ch <- result{tkt, key, err}
	}()
	select {
	case r := <-ch:
		return r.tkt, r.key, r.err
	case <-ctx.Done():
		return messages.Ticket{}, types.EncryptionKey{}, fmt.Errorf("%w: waiting for the KDC: %w", ErrKDCUnavailable, context.Cause(ctx))
	}
}

// krbErrorCode matches the code gokrb5 writes for a KDC's error
// (errorcode.Lookup: "KRB Error: (6) KDC_ERR_C_PRINCIPAL_UNKNOWN").
var krbErrorCode = regexp.MustCompile(`KRB Error: \((\d+)\)`)

// kdcError maps an error of gokrb5's login (login) or service ticket
// request to ErrKDCUnavailable when the KDC could not be reached or was
// unavailable, else to ErrNoCredentials or ErrServiceTicket, wrapping err.
//
// gokrb5 v8 returns the KDC's messages.KRBError wrapped in text (a
// krberror.Krberror, or fmt's %v): kdcError takes the error code from a
// KRBError in the chain when there is one, else from that text.
func kdcError(login bool, err error) error {
	var ke messages.KRBError
	code := int32(-1)
	if errors.As(err, &ke) {
		code = ke.ErrorCode
	} else if m := krbErrorCode.FindStringSubmatch(err.Error()); m != nil {
		if n, perr := strconv.ParseInt(m[1], 10, 32); perr == nil {
			code = int32(n)
		}
	}
	switch code {
	case -1:
		// No answer from a KDC: a network error or a timeout, or a
		// failure on the client's side (configuration, keys, cache).
		var ne net.Error
		var kerr krberror.Krberror
		if errors.As(err, &ne) || (errors.As(err, &kerr) && kerr.RootCause == krberror.NetworkingError) ||
			strings.Contains(err.Error(), "[Root cause: "+krberror.NetworkingError+"]") {
			return fmt.Errorf("%w: %w", ErrKDCUnavailable, err)
		}
		return fmt.Errorf("%w: %w", ErrNoCredentials, err)
	case errorcode.KDC_ERR_SVC_UNAVAILABLE, errorcode.KRB_ERR_RESPONSE_TOO_BIG:
		return fmt.Errorf("%w: %w", ErrKDCUnavailable, err)
	case errorcode.KDC_ERR_S_PRINCIPAL_UNKNOWN, errorcode.KDC_ERR_SERVICE_EXP,
		errorcode.KDC_ERR_SERVICE_REVOKED, errorcode.KDC_ERR_SERVICE_NOTYET:
		if !login {
			return fmt.Errorf("%w: %w", ErrServiceTicket, err)
		}
	}
	// Any other answer of the KDC refuses the client: unknown, revoked
	// or expired principal, failed pre-authentication, clock skew.
	return fmt.Errorf("%w: %w", ErrNoCredentials, err)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	return n, err
}

func ctxOr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func layerNames(mask byte) string {
	var s []string
	for _, l := range []struct {
		bit  byte
		name string
	}{{1, "authentication"}, {2, "integrity"}, {4, "privacy"}} {
		if mask&l.bit != 0 {
			s = append(s, l.name)
		}
	}
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
}

// gssInitialToken frames an AP-REQ as a GSS-API initial context token
// (RFC 2743 3.1, RFC 4121 4.1): [APPLICATION 0] { mech OID, TOK_ID 01 00,
// AP-REQ }.
func gssInitialToken(apReq []byte) []byte {
	n := len(gssKrb5OID) + 2 + len(apReq)
	b := []byte{0x60}
	b = appendDERLength(b, n)
	b = append(b, gssKrb5OID...)
	b = append(b, 0x01, 0x00)
	return append(b, apReq...)
}

func appendDERLength(b []byte, n int) []byte {
	switch {
	case n < 0x80:
		return append(b, byte(n))
	case n < 0x100:
		return append(b, 0x81, byte(n))
	case n < 0x10000:
		return append(b, 0x82, byte(n>>8), byte(n))
	default:
		return append(b, 0x83, byte(n>>16), byte(n>>8), byte(n))
	}
}

func appendSASLToken(dst, tok []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(tok)))
	return append(dst, tok...)
}

// maxSASLToken bounds a token of the handshake.
const maxSASLToken = 1 << 20

// readSASLChallenge reads one server message of the handshake:
//
//	int32 status (0 success) | int32 length, token
//	                         | int32 length, error class | int32 length, message
func readSASLChallenge(r io.Reader) ([]byte, error) {
	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return nil, noEOF(err)
	}
	if status := int32(binary.BigEndian.Uint32(b[:])); status != 0 {
		class, err := readSASLString(r)
		if err != nil {
			return nil, err
		}
		msg, err := readSASLString(r)
		if err != nil {
			return nil, err
		}
		return nil, &AuthError{Class: class, Message: msg, Err: ErrAuthRefused}
	}
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return nil, noEOF(err)
	}
	n := int32(binary.BigEndian.Uint32(b[:]))
	if n == saslSwitchToSimple {
		return nil, &AuthError{Err: fmt.Errorf("%w: it asked for SIMPLE authentication", ErrServerNotSecured)}
	}
	if n < 0 || n > maxSASLToken {
		return nil, &AuthError{Err: fmt.Errorf("%w: token of %d bytes", ErrBadToken, n)}
	}
	tok := make([]byte, n)
	if _, err := io.ReadFull(r, tok); err != nil {
		return nil, noEOF(err)
	}
	return tok, nil
}

func readSASLString(r io.Reader) (string, error) {
	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", noEOF(err)
	}
	n := int32(binary.BigEndian.Uint32(b[:]))
	if n < 0 {
		return "", nil
	}
	if n > maxSASLToken {
		return "", &AuthError{Err: fmt.Errorf("%w: error string of %d bytes", ErrBadToken, n)}
	}
	s := make([]byte, n)
	if _, err := io.ReadFull(r, s); err != nil {
		return "", noEOF(err)
	}
	return string(s), nil
}

// gssContext wraps and unwraps RFC 4121 Wrap tokens (TOK_ID 05 04) with
// the session key of the service ticket (no subkeys are negotiated: the
// authenticator carries none and no mutual authentication is asked).
type gssContext struct {
	key     types.EncryptionKey
	et      etype.EType
	sendSeq uint64
	// recvSeq is the sequence number the peer's next token must carry:
	// its first token sets it (the peer picks its initial number), each
	// one after must follow by one, so a replayed, dropped or reordered
	// token fails to unwrap.
	recvSeq     uint64
	recvStarted bool
	// acceptor is set for the server's side (tests only): it wraps as
	// the acceptor and unwraps the initiator's tokens.
	acceptor bool
}

// Key usages of RFC 4121 2.
const (
	usageAcceptorSeal  = 22
	usageInitiatorSeal = 24
)

// Wrap token flags (RFC 4121 4.2.2).
const (
	flagSentByAcceptor = 1
	flagSealed         = 2
	flagAcceptorSubkey = 4
)

const wrapHeaderLen = 16

func newGSSContext(key types.EncryptionKey, seq uint64) (*gssContext, error) {
	et, err := crypto.GetEtype(key.KeyType)
	if err != nil {
		return nil, err
	}
	return &gssContext{key: key, et: et, sendSeq: seq}, nil
}

func (g *gssContext) header(flags byte, ec, rrc uint16, seq uint64) []byte {
	h := make([]byte, wrapHeaderLen, wrapHeaderLen+64)
	h[0], h[1], h[2], h[3] = 0x05, 0x04, flags, 0xff
	binary.BigEndian.PutUint16(h[4:], ec)
	binary.BigEndian.PutUint16(h[6:], rrc)
	binary.BigEndian.PutUint64(h[8:], seq)
	return h
}

// wrap makes an initiator Wrap token of payload: sealed (encrypted) when
// conf, else with a checksum only.
func (g *gssContext) wrap(payload []byte, conf bool) ([]byte, error) {
	seq := g.sendSeq
	g.sendSeq++
	usage, flags := uint32(usageInitiatorSeal), byte(0)
	if g.acceptor {
		usage, flags = usageAcceptorSeal, flagSentByAcceptor
	}
	if conf {
		// E(payload | header with EC = RRC = 0); no filler.
		plain := make([]byte, 0, len(payload)+wrapHeaderLen)
		plain = append(plain, payload...)
		plain = append(plain, g.header(flags|flagSealed, 0, 0, seq)...)
		_, ct, err := g.et.EncryptMessage(g.key.KeyValue, plain, usage)
		if err != nil {
			return nil, err
		}
		return append(g.header(flags|flagSealed, 0, 0, seq), ct...), nil
	}
	sumIn := make([]byte, 0, len(payload)+wrapHeaderLen)
	sumIn = append(sumIn, payload...)
	sumIn = append(sumIn, g.header(flags, 0, 0, seq)...)
	sum, err := g.et.GetChecksumHash(g.key.KeyValue, sumIn, usage)
	if err != nil {
		return nil, err
	}
	tok := g.header(flags, uint16(len(sum)), 0, seq)
	tok = append(tok, payload...)
	return append(tok, sum...), nil
}

// unwrap checks a Wrap token of the peer and returns its payload. The
// result aliases tok for tokens with a checksum only.
func (g *gssContext) unwrap(tok []byte) ([]byte, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadToken}, args...)...)
	}
	if len(tok) < wrapHeaderLen || tok[0] != 0x05 || tok[1] != 0x04 || tok[3] != 0xff {
		return nil, bad("not a wrap token")
	}
	flags := tok[2]
	usage := uint32(usageAcceptorSeal)
	if g.acceptor {
		usage = usageInitiatorSeal
	}
	if (flags&flagSentByAcceptor != 0) == g.acceptor {
		return nil, bad("wrap token sent by the wrong side")
	}
	if flags&flagAcceptorSubkey != 0 {
		return nil, bad("wrap token under an acceptor subkey, none was negotiated")
	}
	ec := int(binary.BigEndian.Uint16(tok[4:]))
	rrc := int(binary.BigEndian.Uint16(tok[6:]))
	seq := binary.BigEndian.Uint64(tok[8:])
	payload, err := g.open(tok, flags, usage, ec, rrc, seq)
	if err != nil {
		return nil, err
	}
	// Only a token that verified moves the sequence on.
	if g.recvStarted && seq != g.recvSeq {
		return nil, bad("wrap token with sequence number %d, want %d (replayed or out of order)", seq, g.recvSeq)
	}
	g.recvSeq, g.recvStarted = seq+1, true
	return payload, nil
}

// open checks the checksum or decrypts the body of a Wrap token whose
// header unwrap parsed, and returns its payload.
func (g *gssContext) open(tok []byte, flags byte, usage uint32, ec, rrc int, seq uint64) ([]byte, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadToken}, args...)...)
	}
	body := tok[wrapHeaderLen:]
	if rrc != 0 && len(body) > 0 {
		// Undo the sender's right rotation.
		rrc %= len(body)
		rot := make([]byte, 0, len(body))
		rot = append(rot, body[rrc:]...)
		body = append(rot, body[:rrc]...)
	}
	if flags&flagSealed != 0 {
		if len(body) < g.et.GetConfounderByteSize()+g.et.GetHMACBitLength()/8+wrapHeaderLen {
			return nil, bad("sealed token too short")
		}
		plain, err := g.decrypt(body, usage)
		if err != nil {
			return nil, bad("%v", err)
		}
		if len(plain) < ec+wrapHeaderLen {
			return nil, bad("sealed token too short")
		}
		inner := plain[len(plain)-wrapHeaderLen:]
		if inner[0] != 0x05 || inner[1] != 0x04 || inner[2] != flags || binary.BigEndian.Uint64(inner[8:]) != seq ||
			int(binary.BigEndian.Uint16(inner[4:])) != ec {
			return nil, bad("sealed header does not match")
		}
		return plain[:len(plain)-wrapHeaderLen-ec], nil
	}
	if ec > len(body) {
		return nil, bad("checksum length %d exceeds the token", ec)
	}
	payload, sum := body[:len(body)-ec], body[len(body)-ec:]
	sumIn := make([]byte, 0, len(payload)+wrapHeaderLen)
	sumIn = append(sumIn, payload...)
	sumIn = append(sumIn, g.header(flags, 0, 0, seq)...)
	want, err := g.et.GetChecksumHash(g.key.KeyValue, sumIn, usage)
	if err != nil {
		return nil, bad("%v", err)
	}
	if !hmac.Equal(want, sum) {
		return nil, bad("checksum mismatch")
	}
	return payload, nil
}

// decrypt is DecryptMessage, turning a panic of the library on hostile
// input into an error.
func (g *gssContext) decrypt(body []byte, usage uint32) (plain []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("decrypt: %v", r)
		}
	}()
	return g.et.DecryptMessage(g.key.KeyValue, body, usage)
}

// saslConn carries the connection's bytes in length-prefixed Wrap tokens
// (integrity or privacy). Read is called by the connection's reader only,
// Write by its writer only.
type saslConn struct {
	net.Conn
	gss      *gssContext
	conf     bool
	maxSend  int // payload bytes per token
	maxToken int
	br       *bufio.Reader
	rbuf     []byte
	wbuf     []byte
}

func newSASLConn(nc net.Conn, gss *gssContext, conf bool, serverMax, maxFrame int) *saslConn {
	// Stay below the server's receive buffer with the token's overhead
	// (header, confounder, checksum).
	maxSend := serverMax - 128
	if serverMax == 0 || maxSend < 1024 {
		maxSend = 64 << 10
	}
	return &saslConn{Conn: nc, gss: gss, conf: conf, maxSend: maxSend, maxToken: saslMaxToken(maxFrame),
		br: bufio.NewReaderSize(nc, 64<<10)}
}

// saslMaxToken is the largest Wrap token a saslConn reads: a frame of
// maxFrame bytes and the token's overhead. The security-layer reply
// advertises it (at most 2^24-1) as the client's receive buffer.
func saslMaxToken(maxFrame int) int { return maxFrame + 1024 }

func (s *saslConn) Read(p []byte) (int, error) {
	for len(s.rbuf) == 0 {
		tok, err := ReadFrame(s.br, s.maxToken)
		if err != nil {
			return 0, err
		}
		if s.rbuf, err = s.gss.unwrap(tok); err != nil {
			return 0, err
		}
	}
	n := copy(p, s.rbuf)
	s.rbuf = s.rbuf[n:]
	return n, nil
}

func (s *saslConn) Write(p []byte) (int, error) {
	s.wbuf = s.wbuf[:0]
	for off := 0; off < len(p); off += s.maxSend {
		tok, err := s.gss.wrap(p[off:min(off+s.maxSend, len(p))], s.conf)
		if err != nil {
			return 0, err
		}
		s.wbuf = appendSASLToken(s.wbuf, tok)
	}
	if _, err := s.Conn.Write(s.wbuf); err != nil {
		return 0, err
	}
	return len(p), nil
}
