package sim

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
)

// Diff compares one region's share of rows in two reports.
type Diff struct {
	Index     int     `json:"index"`
	Start     Key     `json:"start"`
	End       Key     `json:"end"`
	SimRows   int64   `json:"simulated_rows"`
	RealRows  int64   `json:"measured_rows"`
	Simulated float64 `json:"simulated_share"`
	Measured  float64 `json:"measured_share"`
	// Points is Measured - Simulated in percentage points.
	Points float64 `json:"points"`
	// Requests is the region's share of the measured write requests,
	// when HBase reported them (Comparison.HasRequests).
	Requests float64 `json:"write_request_share,omitempty"`
}

// Comparison sets a simulation beside a measurement of the same table.
type Comparison struct {
	Table   string `json:"table"`
	Regions []Diff `json:"regions"`
	// MaxPoints is the largest absolute difference in percentage points.
	MaxPoints float64 `json:"max_points"`
	// HasRequests reports that the measurement has write request counts;
	// MaxRequestPoints is then the largest difference between the
	// simulated share of rows and the measured share of write requests.
	HasRequests      bool    `json:"has_requests,omitempty"`
	MaxRequestPoints float64 `json:"max_request_points,omitempty"`
	// SimSkew and RealSkew are the max/mean skews of both.
	SimSkew  float64 `json:"simulated_max_over_mean"`
	RealSkew float64 `json:"measured_max_over_mean"`
}

// Compare matches the regions of a simulation and a measurement by their
// key ranges. Simulate with the measured table's region boundaries
// (WithSplits of the measured start keys) so that they match; different
// boundaries are a *ConfigError.
func Compare(simulated, measured *Report) (*Comparison, error) {
	if len(simulated.Regions) != len(measured.Regions) {
		return nil, configErr("regions", "simulation has %d regions, measurement %d: simulate with the table's split keys",
			len(simulated.Regions), len(measured.Regions))
	}
	c := &Comparison{Table: measured.Table, SimSkew: simulated.Skew.MaxOverMean, RealSkew: measured.Skew.MaxOverMean}
	for i, s := range simulated.Regions {
		m := measured.Regions[i]
		if !bytes.Equal(s.Start, m.Start) || !bytes.Equal(s.End, m.End) {
			return nil, configErr("regions", "region %d is [%s, %s) simulated but [%s, %s) measured",
				i, s.Start, s.End, m.Start, m.End)
		}
		d := Diff{Index: i, Start: m.Start, End: m.End, SimRows: s.Rows, RealRows: m.Rows,
			Simulated: s.Share, Measured: m.Share, Points: 100 * (m.Share - s.Share)}
		c.MaxPoints = max(c.MaxPoints, math.Abs(d.Points))
		c.Regions = append(c.Regions, d)
	}
	var writes int64
	for _, m := range measured.Regions {
		writes += m.WriteRequests
	}
	if writes > 0 {
		c.HasRequests = true
		for i, m := range measured.Regions {
			d := &c.Regions[i]
			d.Requests = float64(m.WriteRequests) / float64(writes)
			c.MaxRequestPoints = max(c.MaxRequestPoints, 100*math.Abs(d.Requests-d.Simulated))
		}
	}
	return c, nil
}

// WriteText writes the comparison as an aligned table.
func (c *Comparison) WriteText(w io.Writer) error {
	var buf bytes.Buffer
	b := bufio.NewWriter(&buf)
	fmt.Fprintf(b, "%s: simulated vs measured share of rows per region\n\n", c.Table)
	kw := 5
	for _, d := range c.Regions {
		kw = max(kw, len(shortKey(d.Start, maxKeyWidth)), len(shortKey(d.End, maxKeyWidth)))
	}
	fmt.Fprintf(b, "%6s  %-*s  %-*s  %12s  %12s  %9s  %9s  %8s", "region", kw, "start", kw, "end", "sim rows", "real rows", "sim", "real", "diff pp")
	if c.HasRequests {
		fmt.Fprintf(b, "  %9s  %8s", "writes", "diff pp")
	}
	fmt.Fprintln(b)
	for _, d := range c.Regions {
		fmt.Fprintf(b, "%6d  %-*s  %-*s  %12d  %12d  %8.2f%%  %8.2f%%  %+8.2f", d.Index, kw, shortKey(d.Start, maxKeyWidth), kw, shortKey(d.End, maxKeyWidth),
			d.SimRows, d.RealRows, 100*d.Simulated, 100*d.Measured, d.Points)
		if c.HasRequests {
			fmt.Fprintf(b, "  %8.2f%%  %+8.2f", 100*d.Requests, 100*(d.Requests-d.Simulated))
		}
		fmt.Fprintln(b)
	}
	fmt.Fprintf(b, "\nlargest difference %.2f percentage points (rows); max/mean simulated %.2f, measured %.2f\n", c.MaxPoints, c.SimSkew, c.RealSkew)
	if c.HasRequests {
		fmt.Fprintf(b, "largest difference to HBase's write request counts: %.2f percentage points\n", c.MaxRequestPoints)
	}
	if err := b.Flush(); err != nil {
		return err
	}
	return writeTrimmed(w, buf.Bytes())
}

// WriteSVG draws both shares side by side per region.
func (c *Comparison) WriteSVG(w io.Writer) error {
	labels := make([]string, len(c.Regions))
	sim := make([]float64, len(c.Regions))
	real := make([]float64, len(c.Regions))
	for i, d := range c.Regions {
		labels[i] = chartLabel(d.Index, d.Start)
		sim[i], real[i] = d.Simulated, d.Measured
	}
	title := fmt.Sprintf("%s: simulated vs measured rows per region (largest difference %.2f pp)", c.Table, c.MaxPoints)
	return WriteSVG(w, title, labels, []Series{{Name: "simulated", Shares: sim}, {Name: "measured", Shares: real}})
}
