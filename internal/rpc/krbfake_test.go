package rpc

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// The Kerberos tests run without a KDC: the client's credentials cache
// already holds a TGT and the service ticket for hbase/127.0.0.1, whose
// session key the fake server knows. The tickets themselves are opaque
// bytes that nobody decrypts.

const fakeRealm = "HBKIT.TEST"

// fakeKrb5Conf is a krb5.conf for fakeRealm with its KDC at kdc.
func fakeKrb5Conf(t testing.TB, kdc string) *config.Config {
	t.Helper()
	cfg, err := config.NewFromString(`[libdefaults]
 default_realm = ` + fakeRealm + `
 udp_preference_limit = 1
 dns_lookup_kdc = false
[realms]
 ` + fakeRealm + ` = {
  kdc = ` + kdc + `
 }
`)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// fakeKerberosClient is a gokrb5 client for user@fakeRealm whose cache
// holds a valid TGT and a ticket for hbase/127.0.0.1 with session key key.
func fakeKerberosClient(t testing.TB, key types.EncryptionKey) *client.Client {
	t.Helper()
	be := binary.BigEndian
	var b []byte
	str := func(s string) { b = be.AppendUint32(b, uint32(len(s))); b = append(b, s...) }
	princ := func(typ int32, realm string, comps ...string) {
		b = be.AppendUint32(b, uint32(typ))
		b = be.AppendUint32(b, uint32(len(comps)))
		str(realm)
		for _, c := range comps {
			str(c)
		}
	}
	now := time.Now()
	cred := func(server []string, key types.EncryptionKey) {
		princ(nametype.KRB_NT_PRINCIPAL, fakeRealm, "user")
		princ(nametype.KRB_NT_SRV_INST, fakeRealm, server...)
		b = be.AppendUint16(b, uint16(key.KeyType))
		str(string(key.KeyValue))
		for _, ts := range []time.Time{now.Add(-time.Minute), now.Add(-time.Minute), now.Add(time.Hour), now.Add(time.Hour)} {
			b = be.AppendUint32(b, uint32(ts.Unix()))
		}
		b = append(b, 0, 0, 0, 0, 0) // not a session-key ticket, no flags
		b = be.AppendUint32(b, 0)    // addresses
		b = be.AppendUint32(b, 0)    // authorization data
		tkt := messages.Ticket{TktVNO: 5, Realm: fakeRealm,
			SName:   types.PrincipalName{NameType: nametype.KRB_NT_SRV_INST, NameString: server},
			EncPart: types.EncryptedData{EType: key.KeyType, KVNO: 1, Cipher: []byte("opaque")}}
		tb, err := tkt.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		str(string(tb))
		str("") // second ticket
	}
	b = append(b, 5, 4, 0, 0) // version 4, no header fields
	princ(nametype.KRB_NT_PRINCIPAL, fakeRealm, "user")
	cred([]string{"krbtgt", fakeRealm}, randomKey(t))
	cred([]string{"hbase", "127.0.0.1"}, key)
	cc := new(credentials.CCache)
	if err := cc.Unmarshal(b); err != nil {
		t.Fatal(err)
	}
	cl, err := client.NewFromCCache(cc, fakeKrb5Conf(t, "127.0.0.1:1"), client.DisablePAFXFAST(true))
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func randomKey(t testing.TB) types.EncryptionKey {
	k := make([]byte, 16)
	rand.Read(k)
	return types.EncryptionKey{KeyType: etypeID.AES128_CTS_HMAC_SHA1_96, KeyValue: k}
}

// krbServer is a fake Kerberos HBase: it accepts the GSS-API initial
// token unread, offers the security layers in offer, and hands the
// connection, its acceptor context and the client's security-layer reply
// to after. It counts TLS ClientHellos (probes) and drops them.
type krbServer struct {
	addr string

	mu        sync.Mutex
	tlsProbes int
	replies   chan []byte // the security-layer replies received
}

func newKrbServer(t *testing.T, key types.EncryptionKey, offer byte, after func(nc net.Conn, gss *gssContext)) *krbServer {
	s := &krbServer{replies: make(chan []byte, 16)}
	s.addr = rawServer(t, func(nc net.Conn) {
		pre, ok := readPreamble(nc, func() {
			s.mu.Lock()
			s.tlsProbes++
			s.mu.Unlock()
		})
		if !ok {
			return
		}
		if pre != kerberosPreamble {
			t.Errorf("server: preamble %x, want %x", pre, kerberosPreamble)
			return
		}
		if _, err := readServerFrame(nc); err != nil { // the initial token
			return
		}
		gss, err := newGSSContext(key, 5000)
		if err != nil {
			t.Error(err)
			return
		}
		gss.acceptor = true
		tok, err := gss.wrap([]byte{offer, 0, 0x40, 0}, false) // 16 KB buffer
		if err != nil {
			t.Error(err)
			return
		}
		nc.Write(appendSASLToken(binary.BigEndian.AppendUint32(nil, 0), tok))
		tok, err = readServerFrame(nc)
		if err != nil {
			return
		}
		reply, err := gss.unwrap(tok)
		if err != nil {
			t.Errorf("server: security layer reply: %v", err)
			return
		}
		s.replies <- reply
		after(nc, gss)
	})
	return s
}

func (s *krbServer) probes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tlsProbes
}

// reply waits for the next security-layer reply the server received.
func (s *krbServer) reply(t *testing.T) []byte {
	t.Helper()
	select {
	case r := <-s.replies:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("server got no security layer reply")
		return nil
	}
}

// TestFakeKerberosHandshake checks the harness itself: a call over an
// integrity-protected connection to the fake server.
func TestFakeKerberosHandshake(t *testing.T) {
	key := randomKey(t)
	s := newKrbServer(t, key, 2, func(nc net.Conn, gss *gssContext) {
		sc := &saslConn{Conn: nc, gss: gss, maxSend: 1 << 16, maxToken: 1 << 20, br: bufioReader(nc)}
		serveFake(sc, echoHandler)
	})
	err := callMaster(testContext(t), s.addr, WithKerberos(Kerberos{
		Client: fakeKerberosClient(t, key), ServerPrincipal: "hbase/_HOST", Protection: ProtectionIntegrity}))
	if err != nil {
		t.Fatalf("IsMasterRunning over the fake Kerberos server: %v", err)
	}
	if r := s.reply(t); !bytes.Equal(r[:1], []byte{2}) {
		t.Fatalf("reply %x, want integrity", r)
	}
}

// serveFake reads the ConnectionHeader and serves requests on nc, as
// fakeServer.serve does after the preamble.
func serveFake(nc net.Conn, handle func(sc *serverConn, req *serverRequest)) {
	if _, err := readServerFrame(nc); err != nil {
		return
	}
	sc := &serverConn{nc: nc}
	for {
		body, err := readServerFrame(nc)
		if err != nil {
			return
		}
		req, err := parseServerRequest(body)
		if err != nil {
			return
		}
		handle(sc, req)
	}
}

// TestSASLReceiveBuffer: the security-layer reply advertises the largest
// token the client reads (maxFrame plus overhead, at most 2^24-1), not
// more, so the server never sends a token the client refuses.
func TestSASLReceiveBuffer(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxFrame int
		prot     Protection
		want     []byte
	}{
		{"integrity, 64 KB frames", 64 << 10, ProtectionIntegrity, []byte{2, 0x01, 0x04, 0x00}},
		{"privacy, 1 MB frames", 1 << 20, ProtectionPrivacy, []byte{4, 0x10, 0x04, 0x00}},
		{"privacy, 64 MB frames", 64 << 20, ProtectionPrivacy, []byte{4, 0xff, 0xff, 0xff}},
		{"authentication", 64 << 10, ProtectionAuthentication, []byte{1, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := randomKey(t)
			s := newKrbServer(t, key, 7, func(net.Conn, *gssContext) {})
			c, err := Dial(testContext(t), s.addr, MasterService, WithMaxFrameSize(tc.maxFrame), WithKerberos(Kerberos{
				Client: fakeKerberosClient(t, key), ServerPrincipal: "hbase/_HOST", Protection: tc.prot}))
			if err != nil {
				t.Fatalf("Dial: %v", err)
			}
			c.Close()
			if got := s.reply(t); !bytes.Equal(got, tc.want) {
				t.Fatalf("security layer reply %x, want %x", got, tc.want)
			}
		})
	}
}
