package cli

import "testing"

func TestSecurityOptionsFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    int
		wantErr bool
	}{
		{"none: SIMPLE", nil, 0, false},
		{"keytab", map[string]string{"HBKIT_KEYTAB": "/k", "HBKIT_PRINCIPAL": "u@R"}, 1, false},
		{"credentials cache", map[string]string{"HBKIT_CCACHE": "/tmp/cc"}, 1, false},
		{"protection", map[string]string{"HBKIT_KEYTAB": "/k", "HBKIT_PRINCIPAL": "u@R", "HBKIT_RPC_PROTECTION": "privacy"}, 1, false},
		{"bad protection", map[string]string{"HBKIT_KEYTAB": "/k", "HBKIT_PRINCIPAL": "u@R", "HBKIT_RPC_PROTECTION": "secret"}, 0, true},
		{"protection alone is not Kerberos", map[string]string{"HBKIT_RPC_PROTECTION": "privacy"}, 0, false},
		{"keytab without principal", map[string]string{"HBKIT_KEYTAB": "/k"}, 0, true},
		{"tls cert without key", map[string]string{"HBKIT_TLS_CERT": "/c.pem"}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts, err := SecurityOptions(Security{}, func(k string) string { return tc.env[k] })
			if (err != nil) != tc.wantErr || len(opts) != tc.want {
				t.Fatalf("got %d options, %v; want %d, error %t", len(opts), err, tc.want, tc.wantErr)
			}
		})
	}
}
