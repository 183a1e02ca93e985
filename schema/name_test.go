package schema

import (
	"errors"
	"testing"
)

func TestParseTableName(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantNS   string
		wantQ    string
		wantStr  string
		wantFull string
	}{
		{"bare", "sms", "default", "sms", "sms", "default:sms"},
		{"explicit default", "default:sms", "default", "sms", "sms", "default:sms"},
		{"namespaced", "hbkit:sms_index", "hbkit", "sms_index", "hbkit:sms_index", "hbkit:sms_index"},
		{"dots and dashes", "ns_1:a.b-c", "ns_1", "a.b-c", "ns_1:a.b-c", "ns_1:a.b-c"},
		{"system", "hbase:meta", "hbase", "meta", "hbase:meta", "hbase:meta"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ParseTableName(tt.in)
			if err != nil {
				t.Fatalf("ParseTableName(%q): %v", tt.in, err)
			}
			if n.Namespace != tt.wantNS || n.Qualifier != tt.wantQ {
				t.Errorf("ParseTableName(%q) = %+v, want %s:%s", tt.in, n, tt.wantNS, tt.wantQ)
			}
			if got := n.String(); got != tt.wantStr {
				t.Errorf("String() = %q, want %q", got, tt.wantStr)
			}
			if got := n.FullName(); got != tt.wantFull {
				t.Errorf("FullName() = %q, want %q", got, tt.wantFull)
			}
		})
	}
}

func TestParseTableNameErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantField string
	}{
		{"empty", "", "qualifier"},
		{"empty qualifier", "ns:", "qualifier"},
		{"empty namespace", ":t", "namespace"},
		{"leading dot", ".t", "qualifier"},
		{"leading dash", "ns:-t", "qualifier"},
		{"space", "my table", "qualifier"},
		{"second colon", "a:b:c", "qualifier"},
		{"dash in namespace", "my-ns:t", "namespace"},
		{"dot in namespace", "my.ns:t", "namespace"},
		{"non-ascii", "tábla", "qualifier"},
		{"reserved", "zookeeper", "qualifier"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseTableName(tt.in)
			if !errors.Is(err, ErrInvalidName) {
				t.Fatalf("ParseTableName(%q) error = %v, want ErrInvalidName", tt.in, err)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *Error", err)
			}
			if se.Field != tt.wantField || se.Reason == "" {
				t.Errorf("error field = %q reason = %q, want field %q and a reason", se.Field, se.Reason, tt.wantField)
			}
		})
	}
}
