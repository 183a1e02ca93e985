package bench

import (
	"bufio"
	"fmt"
	"io"
	mrand "math/rand/v2"
)

// RecordsHeader is the first line WriteRecords writes: a comment naming its
// tab-separated columns.
const RecordsHeader = "# client\tmobile\tsent_at_ms\tseq\taccount\tcontent\tdelivered"

// WriteRecords writes the SMS records that the layer workloads (plainWrite,
// daoWrite, indexedWrite, dualWrite) write with these options, so that
// another client can write the very same messages: tools/phoenix loads them
// through Apache Phoenix. It needs WithSeed and WithStart, without which no
// later run writes the same records, and no cluster.
//
// After RecordsHeader comes one line per record, client by client and each
// client's records in the order it writes them: the client number, the
// mobile, the send time in milliseconds since the Unix epoch, the unique
// suffix, the account, the content (capital letters) and the delivered flag
// (1 or 0), separated by tabs.
func WriteRecords(w io.Writer, opts ...Option) error {
	o := defaultOptions()
	for _, opt := range opts {
		if opt == nil {
			return fmt.Errorf("%w: nil Option", ErrInvalidOption)
		}
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return err
	}
	if !o.seeded || o.start.IsZero() {
		return fmt.Errorf("%w: WriteRecords needs WithSeed and WithStart", ErrInvalidOption)
	}
	l := &layers{base: o.base()}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, RecordsHeader)
	for t := range o.threads {
		// The random source of client t, as runClients makes it.
		rng := mrand.New(mrand.NewPCG(o.seed, uint64(t)))
		first := int64(t) * int64(o.rows)
		for i := first; i < first+int64(o.rows); i++ {
			m := l.record(rng, i)
			d := 0
			if m.Delivered {
				d = 1
			}
			fmt.Fprintf(bw, "%d\t%s\t%d\t%d\t%s\t%s\t%d\n", t, m.Mobile, m.SentAt.UnixMilli(), m.Seq, m.Account, m.Content, d)
		}
	}
	return bw.Flush()
}
