package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hbkit/hbkit/examples/internal/text"
)

// progress reports how far a load has come on a writer (stderr). On a
// terminal it redraws one line with a bar, the rate and the time left; on
// anything else (a CI log, a file) it prints one line per tenth of the work,
// so that logs stay short and readable.
type progress struct {
	w     io.Writer
	tty   bool
	total int64
	label string
	now   func() time.Time
	every time.Duration // redraw period on a terminal

	done atomic.Int64
	// The clock runs only between resume and pause: a load that takes
	// turns with another reports its own rate. active is the time of
	// the segments already paused, start the start of the running one.
	active  time.Duration
	start   time.Time
	running bool

	mu       sync.Mutex
	tenths   int64 // tenths already reported (non-terminal)
	stop     chan struct{}
	stopped  chan struct{}
	finished bool
}

// newProgress returns a progress report of total units of work. It prints
// nothing until start.
func newProgress(w io.Writer, tty bool, label string, total int64, now func() time.Time) *progress {
	if now == nil {
		now = time.Now
	}
	return &progress{w: w, tty: tty, total: max(total, 1), label: label, now: now, every: 200 * time.Millisecond}
}

// begin starts the clock and, on a terminal, the redraw loop.
func (p *progress) begin() { p.resume() }

// resume starts the clock again after pause (or for the first time) and,
// on a terminal, the redraw loop.
func (p *progress) resume() {
	p.mu.Lock()
	if p.running || p.finished {
		p.mu.Unlock()
		return
	}
	p.start, p.running = p.now(), true
	p.mu.Unlock()
	if !p.tty {
		return
	}
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.mu.Lock()
				p.draw()
				p.mu.Unlock()
			}
		}
	}()
}

// pause stops the clock (and the redraw loop, leaving the line drawn)
// while another load takes its turn.
func (p *progress) pause() {
	p.mu.Lock()
	if !p.running {
		p.mu.Unlock()
		return
	}
	p.active += p.now().Sub(p.start)
	p.running = false
	p.mu.Unlock()
	if !p.tty {
		return
	}
	close(p.stop)
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	p.draw()
}

// elapsed is the time the clock has run; p.mu is held.
func (p *progress) elapsed() time.Duration {
	if p.running {
		return p.active + p.now().Sub(p.start)
	}
	return p.active
}

// add records n more units done. It is safe for concurrent use.
func (p *progress) add(n int64) {
	p.done.Add(n)
	if p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// Workers add concurrently: the count is read under the lock, so
	// that the lines' counts only grow.
	d := p.done.Load()
	if t := d * 10 / p.total; t > p.tenths {
		// One line for the highest tenth crossed, with the rate so far; a
		// batch that crosses several tenths at once prints one line, and
		// so do two workers' batches that land together.
		p.tenths = min(t, 10)
		fmt.Fprintf(p.w, "%s: %3d%% %s/%s, %s\n", p.label, p.tenths*10,
			text.Grouped(d), text.Grouped(p.total), p.rateETA(d))
	}
}

// end stops the clock and leaves the final state on the screen.
func (p *progress) end() {
	p.pause()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.finished = true
	if p.tty {
		p.draw()
		fmt.Fprintln(p.w)
	}
}

// draw redraws the terminal line; p.mu is held.
func (p *progress) draw() {
	d := p.done.Load()
	const width = 30
	filled := int(min(d, p.total) * width / p.total)
	bar := strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
	fmt.Fprintf(p.w, "\r%s %s %3d%% %s/%s %s\x1b[K", p.label, bar, d*100/p.total,
		text.Grouped(d), text.Grouped(p.total), p.rateETA(d))
}

// rateETA says how fast the work goes and how long the rest will take;
// p.mu is held.
func (p *progress) rateETA(d int64) string {
	el := p.elapsed()
	if el <= 0 || d == 0 {
		return "starting"
	}
	rate := float64(d) / el.Seconds()
	s := fmt.Sprintf("%s/s", text.Grouped(int64(rate)))
	if d < p.total {
		left := time.Duration(float64(p.total-d) / rate * float64(time.Second))
		s += ", ETA " + left.Round(time.Second).String()
	} else {
		s += ", " + el.Round(100*time.Millisecond).String()
	}
	return s
}
