package rpc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/iana/errorcode"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/krberror"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// TestKDCErrorMapping: gokrb5's errors, in the shapes its login and
// service ticket requests return them, map to a permanent typed error
// when the KDC refused and to the retryable ErrKDCUnavailable when it
// could not be reached.
func TestKDCErrorMapping(t *testing.T) {
	krbErr := func(code int32) error {
		return messages.NewKRBError(types.PrincipalName{NameType: nametype.KRB_NT_SRV_INST, NameString: []string{"krbtgt", fakeRealm}}, fakeRealm, code, "")
	}
	// AffirmLogin: the AS exchange's Krberror, flattened by fmt's %v.
	login := func(err error) error {
		return fmt.Errorf("could not get valid TGT for client's realm: %v", err)
	}
	asKDC := func(code int32) error {
		return login(krberror.Errorf(krbErr(code), krberror.KDCError, "AS Exchange Error: kerberos error response from KDC"))
	}
	network := errors.New("communication error with KDC via TCP: error sending to a KDC: dial tcp 127.0.0.1:88: connect: connection refused")
	for _, tc := range []struct {
		name      string
		login     bool
		err       error
		want      error
		retryable bool
	}{
		{"login: client unknown", true, asKDC(errorcode.KDC_ERR_C_PRINCIPAL_UNKNOWN), ErrNoCredentials, false},
		{"login: preauth failed", true, asKDC(errorcode.KDC_ERR_PREAUTH_FAILED), ErrNoCredentials, false},
		{"login: client revoked", true, asKDC(errorcode.KDC_ERR_CLIENT_REVOKED), ErrNoCredentials, false},
		{"login: key expired", true, asKDC(errorcode.KDC_ERR_KEY_EXPIRED), ErrNoCredentials, false},
		{"login: clock skew", true, asKDC(errorcode.KRB_AP_ERR_SKEW), ErrNoCredentials, false},
		{"login: KDC unavailable", true, asKDC(errorcode.KDC_ERR_SVC_UNAVAILABLE), ErrKDCUnavailable, true},
		{"login: KDC unreachable", true, login(krberror.Errorf(network, krberror.NetworkingError, "AS Exchange Error: failed sending AS_REQ to KDC")), ErrKDCUnavailable, true},
		{"login: expired cache", true, login(krberror.New(krberror.KRBMsgError, "cannot login, no user credentials available and no valid existing session")), ErrNoCredentials, false},
		{"ticket: server unknown", false, krberror.Errorf(krbErr(errorcode.KDC_ERR_S_PRINCIPAL_UNKNOWN), krberror.KDCError, "TGS Exchange Error: kerberos error response from KDC when requesting for hbase/x"), ErrServiceTicket, false},
		{"ticket: KDC unreachable", false, krberror.Errorf(network, krberror.NetworkingError, "TGS Exchange Error: issue sending TGS_REQ to KDC"), ErrKDCUnavailable, true},
		{"ticket: a KRBError in the chain", false, fmt.Errorf("tgs: %w", krbErr(errorcode.KDC_ERR_S_PRINCIPAL_UNKNOWN)), ErrServiceTicket, false},
		{"ticket: a timeout", false, &net.OpError{Op: "read", Net: "tcp", Err: timeoutErr{}}, ErrKDCUnavailable, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := kdcError(tc.login, tc.err)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.err.Error()) {
				t.Fatalf("kdcError(%v) = %v, want %v wrapping the cause", tc.err, err, tc.want)
			}
			if got := IsRetryable(&ConnError{Err: &AuthError{Err: err}}); got != tc.retryable {
				t.Fatalf("kdcError(%v) = %v: retryable %t, want %t", tc.err, err, got, tc.retryable)
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// fakeKDC answers every request on TCP with the KRBError code, or with
// nothing (it holds the connection) when code is 0.
func fakeKDC(t *testing.T, code int32) string {
	return rawServer(t, func(nc net.Conn) {
		var lb [4]byte
		if _, err := io.ReadFull(nc, lb[:]); err != nil {
			return
		}
		if _, err := io.ReadFull(nc, make([]byte, binary.BigEndian.Uint32(lb[:]))); err != nil {
			return
		}
		if code == 0 {
			io.Copy(io.Discard, nc)
			return
		}
		ke := messages.NewKRBError(types.PrincipalName{NameType: nametype.KRB_NT_SRV_INST, NameString: []string{"krbtgt", fakeRealm}}, fakeRealm, code, "fake")
		b, err := ke.Marshal()
		if err != nil {
			t.Error(err)
			return
		}
		nc.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...))
	})
}

// TestKDCOutage: a handshake whose login fails because the KDC is down,
// unavailable or silent fails with a retryable ErrKDCUnavailable (within
// the dial's context), one whose login the KDC refuses with a permanent
// ErrNoCredentials.
func TestKDCOutage(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := closed.Addr().String()
	closed.Close()
	// The HBase server: it waits for a handshake that never comes.
	hbase := rawServer(t, func(nc net.Conn) { io.Copy(io.Discard, nc) })
	for _, tc := range []struct {
		name      string
		kdc       string
		want      error
		retryable bool
	}{
		{"KDC down", down, ErrKDCUnavailable, true},
		{"KDC unavailable", fakeKDC(t, errorcode.KDC_ERR_SVC_UNAVAILABLE), ErrKDCUnavailable, true},
		{"KDC silent", fakeKDC(t, 0), context.DeadlineExceeded, true},
		{"client unknown", fakeKDC(t, errorcode.KDC_ERR_C_PRINCIPAL_UNKNOWN), ErrNoCredentials, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := client.NewWithPassword("user", fakeRealm, "secret", fakeKrb5Conf(t, tc.kdc), client.DisablePAFXFAST(true))
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			_, err := Dial(ctx, hbase, MasterService, WithKerberos(Kerberos{Client: cl, ServerPrincipal: "hbase/_HOST"}))
			var ae *AuthError
			if !errors.Is(err, tc.want) || !errors.As(err, &ae) || IsRetryable(err) != tc.retryable {
				t.Fatalf("Dial = %v (retryable %t), want %v in an *AuthError (retryable %t)", err, IsRetryable(err), tc.want, tc.retryable)
			}
		})
	}
}
