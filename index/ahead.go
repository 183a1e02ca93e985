package index

import "context"

// readAhead runs the batches of one pass with several in flight. scan
// produces them in key order, on a goroutine of its own, so that it reads
// on while earlier batches are handled; work handles a batch, up to depth
// at once; done receives each batch and its result in the order scan
// produced them. It returns the first error of the three, and calls done
// for no batch after it; every goroutine it started has returned by then.
func readAhead[B, R any](ctx context.Context, depth int, scan func(ctx context.Context, emit func(B) error) error,
	work func(context.Context, B) (R, error), done func(B, R) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type job struct {
		b     B
		r     R
		err   error
		ready chan struct{}
	}
	jobs := make(chan *job, depth)
	slots := make(chan struct{}, depth)
	scanned := make(chan error, 1)
	go func() {
		defer close(jobs)
		scanned <- scan(ctx, func(b B) error {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			j := &job{b: b, ready: make(chan struct{})}
			go func() {
				defer close(j.ready)
				j.r, j.err = work(ctx, b)
			}()
			jobs <- j // room: a job holds a slot until done takes it
			return nil
		})
	}()
	var err error
	for j := range jobs {
		<-j.ready
		<-slots
		if err == nil {
			if err = j.err; err == nil {
				err = done(j.b, j.r)
			}
			if err != nil {
				cancel()
			}
		}
	}
	if serr := <-scanned; err == nil {
		err = serr
	}
	return err
}
