package index_test

import (
	"errors"
	"testing"

	"github.com/hbkit/hbkit/index"
)

func TestPerRecord(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		n    int
		err  error
		want []error
	}{
		{name: "all written", n: 3, err: nil, want: nil},
		{name: "some failed", n: 3, err: &index.BatchError{Failed: []index.ItemError{{Index: 1, Err: boom}}}, want: []error{nil, boom, nil}},
		{name: "whole batch failed", n: 2, err: boom, want: []error{boom, boom}},
		{name: "index out of range ignored", n: 1, err: &index.BatchError{Failed: []index.ItemError{{Index: 5, Err: boom}, {Index: -1, Err: boom}}}, want: []error{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := index.PerRecord(tt.n, tt.err)
			if len(got) != len(tt.want) {
				t.Fatalf("PerRecord = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("record %d: %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
