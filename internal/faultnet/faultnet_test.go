package faultnet

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// server answers every 4-byte request n with a frame of n bytes of 'a'.
func server(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var req [4]byte
				for {
					if _, err := io.ReadFull(c, req[:]); err != nil {
						return
					}
					n := binary.BigEndian.Uint32(req[:])
					out := make([]byte, 4+n)
					binary.BigEndian.PutUint32(out, n)
					copy(out[4:], bytes.Repeat([]byte("a"), int(n)))
					if _, err := c.Write(out); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func ask(c net.Conn, n uint32) ([]byte, error) {
	var req [4]byte
	binary.BigEndian.PutUint32(req[:], n)
	if _, err := c.Write(req[:]); err != nil {
		return nil, err
	}
	var head [4]byte
	if _, err := io.ReadFull(c, head[:]); err != nil {
		return nil, err
	}
	body := make([]byte, binary.BigEndian.Uint32(head[:]))
	_, err := io.ReadFull(c, body)
	return body, err
}

func TestFaults(t *testing.T) {
	addr := server(t)
	ctx := context.Background()
	d := New(nil, nil)
	c, err := d.Dial(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if b, err := ask(c, 10); err != nil || len(b) != 10 {
		t.Fatalf("clean: %d bytes, %v", len(b), err)
	}

	d.MangleNextAnswer(AddToLength(-3))
	if b, err := ask(c, 10); err != nil || len(b) != 7 {
		t.Fatalf("length -3: %d bytes, %v", len(b), err)
	}

	d.ResetNextAnswer()
	if _, err := ask(c, 10); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("reset: got %v, want ECONNRESET", err)
	}
	if _, err := c.Write([]byte{0}); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("write after reset: got %v", err)
	}
	if st := d.Stats(); st.Resets != 1 || st.Mangled != 1 || st.Dials != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestHalfOpenHonoursDeadline(t *testing.T) {
	d := New(nil, nil)
	c, err := d.Dial(context.Background(), "tcp", server(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d.SetFaults(Faults{HalfOpen: true})
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	start := time.Now()
	_, err = ask(c, 10)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("got %v, want a deadline error", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("took %v", el)
	}
	// Healed: the answer to the dropped request never comes, a new one does.
	d.SetFaults(Faults{})
	c.SetReadDeadline(time.Time{})
	if b, err := ask(c, 5); err != nil || len(b) != 5 {
		t.Fatalf("healed: %d bytes, %v", len(b), err)
	}
}

func TestSlowLink(t *testing.T) {
	d := New(nil, nil)
	c, err := d.Dial(context.Background(), "tcp", server(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d.SetFaults(Faults{BytesPerSecond: 20_000})
	start := time.Now()
	if b, err := ask(c, 4000); err != nil || len(b) != 4000 {
		t.Fatalf("%d bytes, %v", len(b), err)
	}
	if el := time.Since(start); el < 150*time.Millisecond {
		t.Fatalf("4 KB at 20 KB/s took %v", el)
	}
}

func TestRefuseDials(t *testing.T) {
	d := New(nil, nil)
	d.SetFaults(Faults{RefuseDials: true})
	_, err := d.Dial(context.Background(), "tcp", server(t))
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("got %v", err)
	}
}

func TestSlippedFrames(t *testing.T) {
	d := New(nil, nil)
	d.Seed(7)
	c, err := d.Dial(context.Background(), "tcp", server(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct {
		name   string
		faults Faults
		lo, hi uint32 // the length prefix the client reads
	}{
		{"shorten", Faults{ShortenAnswer: 1}, 100 - 8, 100 - 1},
		{"lengthen", Faults{LengthenAnswer: 1}, 100 + 1, 100 + 8},
	} {
		// Each case on a fresh connection: the slip leaves the stream
		// out of step.
		c, err := d.Dial(context.Background(), "tcp", server(t))
		if err != nil {
			t.Fatal(err)
		}
		d.SetFaults(tc.faults)
		var req [4]byte
		binary.BigEndian.PutUint32(req[:], 100)
		if _, err := c.Write(req[:]); err != nil {
			t.Fatal(err)
		}
		var head [4]byte
		if _, err := io.ReadFull(c, head[:]); err != nil {
			t.Fatal(err)
		}
		if n := binary.BigEndian.Uint32(head[:]); n < tc.lo || n > tc.hi {
			t.Errorf("%s: length prefix %d, want %d..%d", tc.name, n, tc.lo, tc.hi)
		}
		c.Close()
	}
	d.SetFaults(Faults{})
	if b, err := ask(c, 10); err != nil || len(b) != 10 {
		t.Fatalf("clean: %d bytes, %v", len(b), err)
	}
	if st := d.Stats(); st.Shortened != 1 || st.Lengthened != 1 {
		t.Fatalf("stats %+v, want one shortened and one lengthened frame", st)
	}
}

func TestLatencySpike(t *testing.T) {
	d := New(nil, nil)
	c, err := d.Dial(context.Background(), "tcp", server(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d.SetFaults(Faults{Latency: 10 * time.Millisecond, SpikeAnswer: 1, Spike: 200 * time.Millisecond})
	start := time.Now()
	if b, err := ask(c, 10); err != nil || len(b) != 10 {
		t.Fatalf("%d bytes, %v", len(b), err)
	}
	if el := time.Since(start); el < 210*time.Millisecond {
		t.Fatalf("a spiked answer took %v, want at least 210ms", el)
	}
	// A spike longer than the read deadline ends in a timeout.
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := ask(c, 10); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("spike past the deadline: got %v, want a deadline error", err)
	}
	if st := d.Stats(); st.Spikes != 2 {
		t.Fatalf("stats %+v, want 2 spikes", st)
	}
}

// The latency counts from each answer's arrival: answers to requests sent
// together come together, not one latency after the other.
func TestLatencyOverlaps(t *testing.T) {
	d := New(nil, nil)
	c, err := d.Dial(context.Background(), "tcp", server(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d.SetFaults(Faults{Latency: 200 * time.Millisecond})
	start := time.Now()
	var reqs []byte
	for range 5 {
		reqs = binary.BigEndian.AppendUint32(reqs, 10)
	}
	if _, err := c.Write(reqs); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		var frame [14]byte
		if _, err := io.ReadFull(c, frame[:]); err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
	}
	if el := time.Since(start); el < 200*time.Millisecond || el > 600*time.Millisecond {
		t.Fatalf("5 answers with 200ms latency took %v, want 200ms and not 5 times that", el)
	}
}

// A read deadline that ends while an answer is held back loses nothing:
// the answer comes on the next read.
func TestDeadlineKeepsHeldAnswer(t *testing.T) {
	d := New(nil, nil)
	c, err := d.Dial(context.Background(), "tcp", server(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d.SetFaults(Faults{Latency: 300 * time.Millisecond})
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := ask(c, 10); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("got %v, want a deadline error", err)
	}
	c.SetReadDeadline(time.Time{})
	var frame [14]byte
	if _, err := io.ReadFull(c, frame[:]); err != nil || binary.BigEndian.Uint32(frame[:4]) != 10 {
		t.Fatalf("held answer: % x, %v", frame, err)
	}
}
