package rpc

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/types"
)

func TestParseProtection(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Protection
		wantErr bool
	}{
		{"authentication", ProtectionAuthentication, false},
		{"auth", ProtectionAuthentication, false},
		{"integrity", ProtectionIntegrity, false},
		{" Auth-Int ", ProtectionIntegrity, false},
		{"privacy", ProtectionPrivacy, false},
		{"auth-conf", ProtectionPrivacy, false},
		{"", 0, true},
		{"encrypt", 0, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseProtection(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("ParseProtection(%q) = %v, %v; want %v, error %t", tc.in, got, err, tc.want, tc.wantErr)
			}
			if err == nil {
				if back, err := ParseProtection(got.String()); err != nil || back != got {
					t.Fatalf("ParseProtection(%q) = %v, %v", got.String(), back, err)
				}
			}
		})
	}
}

// gssPair returns an initiator and an acceptor sharing a random key of etype.
func gssPair(t testing.TB, etype int32, size int) (ini, acc *gssContext) {
	t.Helper()
	k := make([]byte, size)
	rand.Read(k)
	key := types.EncryptionKey{KeyType: etype, KeyValue: k}
	ini, err := newGSSContext(key, 7)
	if err != nil {
		t.Fatal(err)
	}
	acc, err = newGSSContext(key, 7)
	if err != nil {
		t.Fatal(err)
	}
	acc.acceptor = true
	return ini, acc
}

func TestGSSWrapRoundTrip(t *testing.T) {
	for _, et := range []struct {
		name string
		id   int32
		size int
	}{
		{"aes128-cts-hmac-sha1-96", etypeID.AES128_CTS_HMAC_SHA1_96, 16},
		{"aes256-cts-hmac-sha1-96", etypeID.AES256_CTS_HMAC_SHA1_96, 32},
	} {
		for _, conf := range []bool{false, true} {
			for _, payload := range [][]byte{{}, []byte("x"), bytes.Repeat([]byte("hbase frame "), 1000)} {
				name := et.name
				if conf {
					name += "/sealed"
				}
				t.Run(name, func(t *testing.T) {
					ini, acc := gssPair(t, et.id, et.size)
					for _, dir := range []struct{ from, to *gssContext }{{ini, acc}, {acc, ini}} {
						tok, err := dir.from.wrap(payload, conf)
						if err != nil {
							t.Fatalf("wrap: %v", err)
						}
						if conf && len(payload) > 4 && bytes.Contains(tok, payload) {
							t.Fatal("sealed token holds the payload in clear")
						}
						got, err := dir.to.unwrap(tok)
						if err != nil {
							t.Fatalf("unwrap: %v", err)
						}
						if !bytes.Equal(got, payload) {
							t.Fatalf("got %x, want %x", got, payload)
						}
						// A rotated token (RRC, RFC 4121 4.2.5) unwraps the same.
						if tok, err = dir.from.wrap(payload, conf); err != nil {
							t.Fatalf("wrap: %v", err)
						}
						if body := tok[wrapHeaderLen:]; len(body) > 3 {
							rot := append([]byte(nil), tok[:wrapHeaderLen]...)
							rot = append(rot, body[len(body)-3:]...)
							rot = append(rot, body[:len(body)-3]...)
							binary.BigEndian.PutUint16(rot[6:], 3)
							if got, err := dir.to.unwrap(rot); err != nil || !bytes.Equal(got, payload) {
								t.Fatalf("unwrap rotated: %x, %v", got, err)
							}
						}
						// Any flipped bit fails with ErrBadToken.
						bad := append([]byte(nil), tok...)
						bad[len(bad)-1] ^= 1
						if _, err := dir.to.unwrap(bad); !errors.Is(err, ErrBadToken) {
							t.Fatalf("unwrap of a damaged token: got %v, want ErrBadToken", err)
						}
						// A token does not unwrap on the side that sent it.
						if _, err := dir.from.unwrap(tok); !errors.Is(err, ErrBadToken) {
							t.Fatalf("unwrap of its own token: got %v, want ErrBadToken", err)
						}
					}
				})
			}
		}
	}
}

// TestGSSUnwrapSequence: after the peer's first token, each token must
// carry the next sequence number: a replayed, reordered or skipped token
// fails with ErrBadToken.
func TestGSSUnwrapSequence(t *testing.T) {
	for _, conf := range []bool{false, true} {
		ini, acc := gssPair(t, etypeID.AES128_CTS_HMAC_SHA1_96, 16)
		var toks [][]byte
		for i := range 4 {
			tok, err := acc.wrap([]byte{byte(i)}, conf)
			if err != nil {
				t.Fatal(err)
			}
			toks = append(toks, tok)
		}
		for _, step := range []struct {
			name string
			tok  int
			ok   bool
		}{
			{"first", 0, true},
			{"replayed", 0, false},
			{"skipping one", 2, false},
			{"next", 1, true},
			{"replayed older", 0, false},
			{"next again", 2, true},
			{"last", 3, true},
			{"replayed last", 3, false},
		} {
			got, err := ini.unwrap(toks[step.tok])
			if step.ok && (err != nil || !bytes.Equal(got, []byte{byte(step.tok)})) {
				t.Fatalf("conf %t: %s: unwrap token %d = %x, %v; want %x", conf, step.name, step.tok, got, err, []byte{byte(step.tok)})
			}
			if !step.ok && !errors.Is(err, ErrBadToken) {
				t.Fatalf("conf %t: %s: unwrap token %d = %x, %v; want ErrBadToken", conf, step.name, step.tok, got, err)
			}
		}
	}
}

// TestSASLConn: frames written through one side's saslConn read back whole
// on the other, split into tokens of at most maxSend bytes.
func TestSASLConn(t *testing.T) {
	for _, conf := range []bool{false, true} {
		ini, acc := gssPair(t, etypeID.AES256_CTS_HMAC_SHA1_96, 32)
		var wire bytes.Buffer
		w := &saslConn{gss: ini, conf: conf, maxSend: 1000}
		msg := bytes.Repeat([]byte("0123456789"), 550)
		if err := writeTo(&wire, w, msg); err != nil {
			t.Fatal(err)
		}
		tokens := 0
		for b := wire.Bytes(); len(b) >= 4; tokens++ {
			b = b[4+binary.BigEndian.Uint32(b):]
		}
		if tokens != 6 {
			t.Fatalf("conf %t: %d tokens for %d bytes at 1000 a token, want 6", conf, tokens, len(msg))
		}
		r := &saslConn{gss: acc, conf: conf, maxToken: 1 << 20, br: bufioReader(&wire)}
		got, err := io.ReadAll(io.LimitReader(r, int64(len(msg))))
		if err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("conf %t: read back %d bytes, %v", conf, len(got), err)
		}
	}
}

func TestReadSASLChallenge(t *testing.T) {
	be := func(vs ...any) []byte {
		var b []byte
		for _, v := range vs {
			switch v := v.(type) {
			case int:
				b = binary.BigEndian.AppendUint32(b, uint32(int32(v)))
			case string:
				b = append(b, v...)
			}
		}
		return b
	}
	for _, tc := range []struct {
		name    string
		in      []byte
		want    string
		wantErr error
		class   string
	}{
		{"token", be(0, 3, "abc"), "abc", nil, ""},
		{"empty token", be(0, 0), "", nil, ""},
		{"server error", be(1, 19, "javax.SaslException", 4, "oops"), "", ErrAuthRefused, "javax.SaslException"},
		{"switch to simple", be(0, -88), "", ErrServerNotSecured, ""},
		{"huge token", be(0, 1<<30), "", ErrBadToken, ""},
		{"negative token", be(0, -1), "", ErrBadToken, ""},
		{"truncated token", be(0, 5, "ab"), "", io.ErrUnexpectedEOF, ""},
		{"truncated status", []byte{0, 0}, "", io.ErrUnexpectedEOF, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readSASLChallenge(bytes.NewReader(tc.in))
			if tc.wantErr == nil {
				if err != nil || string(got) != tc.want {
					t.Fatalf("got %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("got %v, want %v", err, tc.wantErr)
			}
			var ae *AuthError
			if tc.class != "" && (!errors.As(err, &ae) || ae.Class != tc.class) {
				t.Fatalf("got %#v, want class %s", err, tc.class)
			}
		})
	}
}

func TestAuthErrorRetryable(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"no credentials", &AuthError{Err: ErrNoCredentials}, false},
		{"refused", &AuthError{Err: ErrAuthRefused, Class: "x"}, false},
		{"protection", &AuthError{Err: ErrProtectionMismatch}, false},
		{"connection broke", &AuthError{Err: io.ErrUnexpectedEOF}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsRetryable(&ConnError{Addr: "a", Service: "s", Err: tc.err}); got != tc.want {
				t.Fatalf("IsRetryable = %t, want %t", got, tc.want)
			}
		})
	}
}

func FuzzReadSASLChallenge(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, 'x'})
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 1, 'x', 0, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xa8})
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := readSASLChallenge(bytes.NewReader(b))
		if err == nil && len(tok) > len(b) {
			t.Fatalf("token of %d bytes from %d", len(tok), len(b))
		}
	})
}

func FuzzGSSUnwrap(f *testing.F) {
	ini, acc := gssPair(f, etypeID.AES128_CTS_HMAC_SHA1_96, 16)
	for _, conf := range []bool{false, true} {
		tok, err := acc.wrap([]byte("seed"), conf)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(tok)
	}
	f.Fuzz(func(t *testing.T, tok []byte) {
		_, _ = ini.unwrap(tok) // never panics
	})
}

func writeTo(w io.Writer, s *saslConn, p []byte) error {
	s.Conn = writerConn{w}
	_, err := s.Write(p)
	return err
}

// writerConn is a net.Conn that only writes, to w.
type writerConn struct{ w io.Writer }

func (c writerConn) Write(p []byte) (int, error)    { return c.w.Write(p) }
func (writerConn) Read([]byte) (int, error)         { return 0, io.EOF }
func (writerConn) Close() error                     { return nil }
func (writerConn) LocalAddr() net.Addr              { return nil }
func (writerConn) RemoteAddr() net.Addr             { return nil }
func (writerConn) SetDeadline(time.Time) error      { return nil }
func (writerConn) SetReadDeadline(time.Time) error  { return nil }
func (writerConn) SetWriteDeadline(time.Time) error { return nil }

func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }
