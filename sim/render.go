package sim

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
	"time"
)

// barWidth is the width in characters of the longest text bar.
const barWidth = 40

// bar returns a bar of width proportional to v/max, with eighth blocks.
func bar(v, maxV float64, width int) string {
	if maxV <= 0 || v <= 0 {
		return ""
	}
	eighths := int(v / maxV * float64(width*8))
	if eighths == 0 {
		eighths = 1
	}
	var sb strings.Builder
	sb.WriteString(strings.Repeat("█", eighths/8))
	if r := eighths % 8; r > 0 {
		sb.WriteRune([]rune("▏▎▍▌▋▊▉")[r-1])
	}
	return sb.String()
}

// heat returns one character per value, from ' ' (none) to '█' (the max).
func heat(vs []int64) string {
	var m int64
	for _, v := range vs {
		m = max(m, v)
	}
	levels := []rune(" ▁▂▃▄▅▆▇█")
	var sb strings.Builder
	for _, v := range vs {
		switch {
		case v == 0 || m == 0:
			sb.WriteRune('·')
		default:
			sb.WriteRune(levels[1+int(float64(v)/float64(m)*7.999)])
		}
	}
	return sb.String()
}

// requestSkew returns the skew of the regions' write request counts, and
// false when none were reported.
func requestSkew(rs []Region) (Skew, bool) {
	counts := make([]Region, len(rs))
	var total int64
	for i, g := range rs {
		counts[i].Rows = g.WriteRequests
		total += g.WriteRequests
	}
	if total == 0 {
		return Skew{}, false
	}
	return FillShares(counts), true
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// HumanBytes formats n bytes with a binary unit: 512 B, 1.5 KiB, 10.0 GiB.
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// maxKeyWidth is the widest key the text tables print; longer keys are
// cut with an ellipsis.
const maxKeyWidth = 32

// shortKey returns k readably, "-" for the empty key, cut to width bytes.
// The result is ASCII but for the ellipsis, so len() measures its columns
// (the ellipsis counts 3 bytes for 1 column, which only widens a column).
func shortKey(k Key, width int) string {
	s := k.String()
	if s == "" {
		return "-"
	}
	if len(s) > width {
		return s[:width-1] + "…"
	}
	return s
}

// WriteText writes the report as aligned tables with text bars, for a
// terminal.
func (r *Report) WriteText(w io.Writer) error {
	var buf bytes.Buffer
	b := bufio.NewWriter(&buf)
	kind := "simulated"
	if r.Measured {
		kind = "measured"
	}
	fmt.Fprintf(b, "%s %s: %d rows", kind, r.Table, r.Rows)
	if r.Bytes > 0 {
		fmt.Fprintf(b, ", %s", HumanBytes(r.Bytes))
	}
	fmt.Fprintf(b, ", %s, %s", plural(len(r.Regions), "region"), plural(len(r.Servers), "server"))
	if r.Elapsed > 0 {
		fmt.Fprintf(b, " (%s)", r.Elapsed.Round(time.Millisecond))
	}
	fmt.Fprintln(b)
	if !r.Measured && !r.Ordinal && r.Rows > 0 {
		fmt.Fprintf(b, "record times from %s to %s\n", r.First.Format("2006-01-02 15:04:05"), r.Last.Format("2006-01-02 15:04:05"))
	}
	fmt.Fprintln(b)
	writeRegions(b, r.Regions, r.Measured)
	fmt.Fprintf(b, "skew: max/mean %.2f (region %d), min/mean %.2f (region %d)\n",
		r.Skew.MaxOverMean, r.Skew.Max, r.Skew.MinOverMean, r.Skew.Min)
	if sk, ok := requestSkew(r.Regions); ok {
		fmt.Fprintf(b, "write requests skew: max/mean %.2f (region %d), min/mean %.2f (region %d)\n",
			sk.MaxOverMean, sk.Max, sk.MinOverMean, sk.Min)
	}

	if len(r.Slices) > 0 {
		by := "record time"
		if r.Ordinal {
			by = "write order"
		}
		fmt.Fprintf(b, "\ntime slices (writes by %s; hot: the busiest region, busiest rs: the busiest server's share; heat: one column per region, · none):\n", by)
		fmt.Fprintf(b, "%5s  %-16s  %-16s  %10s  %4s  %7s  %6s  %11s  %s\n", "slice", "from", "to", "rows", "hot", "hot%", "active", "busiest rs%", "heat")
		for i, s := range r.Slices {
			from, to := s.From.Format("2006-01-02 15:04"), s.To.Format("2006-01-02 15:04")
			if r.Ordinal {
				from, to = "write "+strconv.FormatInt(s.From.UnixMilli(), 10), "write "+strconv.FormatInt(s.To.UnixMilli(), 10)
			}
			var busiest int64
			for _, v := range s.Servers {
				busiest = max(busiest, v)
			}
			srv := 0.0
			if s.Rows > 0 {
				srv = 100 * float64(busiest) / float64(s.Rows)
			}
			fmt.Fprintf(b, "%5d  %-16s  %-16s  %10d  %4d  %6.1f%%  %6d  %10.1f%%  %s\n", i,
				from, to, s.Rows, s.Hot, 100*s.HotShare, s.Active, srv, heat(s.Regions))
		}
	}

	if r.SplitSize > 0 || r.SplitRows > 0 {
		fmt.Fprintf(b, "\nregion splits (")
		switch {
		case r.SplitPolicy == "stepping":
			fmt.Fprintf(b, "stepping policy: a region splits at its midpoint past %s while alone on its server, else past %s",
				HumanBytes(2*r.FlushSize), HumanBytes(r.SplitSize))
		case r.SplitSize > 0:
			fmt.Fprintf(b, "a region splits at its midpoint past %s", HumanBytes(r.SplitSize))
		default:
			fmt.Fprintf(b, "a region splits at its midpoint past %d rows", r.SplitRows)
		}
		if r.SplitRows > 0 && r.SplitSize > 0 {
			fmt.Fprintf(b, " or %d rows", r.SplitRows)
		}
		fmt.Fprintf(b, "): %d splits, %d regions at the end\n", len(r.Splits), len(r.Final))
		if len(r.Splits) > 0 {
			show := r.Splits
			const maxShown = 40
			if len(show) > maxShown {
				show = show[:maxShown]
			}
			kw := len("parent start")
			for _, e := range show {
				kw = max(kw, len(shortKey(e.Start, maxKeyWidth)), len(shortKey(e.End, maxKeyWidth)), len(shortKey(e.Key, maxKeyWidth)))
			}
			fmt.Fprintf(b, "%6s  %12s  %-19s  %-*s  %-*s  %-*s\n", "split", "after write", "record time", kw, "parent start", kw, "parent end", kw, "split key")
			for i, e := range show {
				at := time.UnixMilli(e.At).UTC().Format("2006-01-02 15:04:05")
				if r.Ordinal {
					at = "-" // no record times: the write number says when
				}
				fmt.Fprintf(b, "%6d  %12d  %-19s  %-*s  %-*s  %-*s\n", i+1, e.Write, at,
					kw, shortKey(e.Start, maxKeyWidth), kw, shortKey(e.End, maxKeyWidth), kw, shortKey(e.Key, maxKeyWidth))
			}
			if len(r.Splits) > maxShown {
				fmt.Fprintf(b, "   ... %d more (see --json)\n", len(r.Splits)-maxShown)
			}
			fmt.Fprintln(b, "\nregions at the end:")
			writeRegions(b, r.Final, false)
		}
	}
	if r.Flushes > 0 {
		fmt.Fprintf(b, "\nmemstore flushes: %d\n", r.Flushes)
	}

	if len(r.Servers) > 0 {
		how := "regions round-robin in key order"
		if r.Measured {
			how = "as hosted"
		}
		fmt.Fprintf(b, "\nregion servers (%s):\n", how)
		fmt.Fprintf(b, "%-22s  %7s  %12s  %7s  %s\n", "server", "regions", "rows", "share", "")
		var m float64
		for _, s := range r.Servers {
			m = max(m, s.Share)
		}
		for _, s := range r.Servers {
			fmt.Fprintf(b, "%-22s  %7d  %12d  %6.2f%%  %s\n", s.Name, s.Regions, s.Rows, 100*s.Share, bar(s.Share, m, barWidth))
		}
		fmt.Fprintf(b, "server skew: max/mean %.2f\n", r.ServerSkew.MaxOverMean)
	}
	if err := b.Flush(); err != nil {
		return err
	}
	return writeTrimmed(w, buf.Bytes())
}

// writeTrimmed writes text with the trailing blanks of each line removed.
func writeTrimmed(w io.Writer, text []byte) error {
	out := make([]byte, 0, len(text))
	for line := range bytes.Lines(text) {
		nl := bytes.HasSuffix(line, []byte("\n"))
		out = append(out, bytes.TrimRight(line, " \n")...)
		if nl {
			out = append(out, '\n')
		}
	}
	_, err := w.Write(out)
	return err
}

func writeRegions(b *bufio.Writer, rs []Region, requests bool) {
	var flushes, sizes bool
	var m float64
	for _, g := range rs {
		m = max(m, g.Share)
		flushes = flushes || g.Flushes > 0
		sizes = sizes || g.Bytes > 0
	}
	kw := 5
	for _, g := range rs {
		kw = max(kw, len(shortKey(g.Start, maxKeyWidth)), len(shortKey(g.End, maxKeyWidth)))
	}
	fmt.Fprintf(b, "%6s  %-*s  %-*s  %12s  %7s  ", "region", kw, "start", kw, "end", "rows", "share")
	if sizes {
		fmt.Fprintf(b, "%10s  ", "size")
	}
	if requests {
		fmt.Fprintf(b, "%10s  %10s  ", "reads", "writes")
	}
	if flushes {
		fmt.Fprintf(b, "%7s  ", "flushes")
	}
	fmt.Fprintln(b)
	for _, g := range rs {
		fmt.Fprintf(b, "%6d  %-*s  %-*s  %12d  %6.2f%%  ", g.Index, kw, shortKey(g.Start, maxKeyWidth), kw, shortKey(g.End, maxKeyWidth), g.Rows, 100*g.Share)
		if sizes {
			fmt.Fprintf(b, "%10s  ", HumanBytes(g.Bytes))
		}
		if requests {
			fmt.Fprintf(b, "%10d  %10d  ", g.ReadRequests, g.WriteRequests)
		}
		if flushes {
			fmt.Fprintf(b, "%7d  ", g.Flushes)
		}
		fmt.Fprintln(b, bar(g.Share, m, barWidth))
	}
}

// Chart geometry for WriteSVG.
const (
	svgWidth = 900
	svgBarH  = 18
	svgLeft  = 170
	svgRight = 90
	svgTop   = 56
)

// Series is one named set of shares for a bar chart, one value per region.
type Series struct {
	Name   string
	Shares []float64
}

// WriteSVG writes a horizontal bar chart of the share of rows per region,
// a self-contained SVG document. Several series (simulated and measured)
// are drawn side by side in each region's band.
func WriteSVG(w io.Writer, title string, labels []string, series []Series) error {
	return writeSVG(w, title, labels, series, nil, false)
}

// writeSVG draws the bars and, if slices are given, a heat map of the
// writes per time slice (rows) and region (columns) below them.
func writeSVG(w io.Writer, title string, labels []string, series []Series, slices []Slice, ordinal bool) error {
	b := bufio.NewWriter(w)
	colors := []string{"#3b6fb6", "#e07b39", "#4a9b5e", "#a05195"}
	n := len(labels)
	band := svgBarH * max(1, len(series))
	barsBottom := svgTop + n*(band+6) + 40
	height := barsBottom
	const cellH = 16
	if len(slices) > 0 {
		height += 50 + len(slices)*cellH + 30
	}
	plot := float64(svgWidth - svgLeft - svgRight)
	var m float64
	for _, s := range series {
		for _, v := range s.Shares {
			m = max(m, v)
		}
	}
	if m == 0 {
		m = 1
	}
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">`+"\n",
		svgWidth, height, svgWidth, height)
	fmt.Fprintf(b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(b, `<text x="12" y="22" font-size="16" font-weight="bold">%s</text>`+"\n", html.EscapeString(title))
	x := svgLeft
	for i, s := range series {
		fmt.Fprintf(b, `<rect x="%d" y="32" width="12" height="12" fill="%s"/><text x="%d" y="43">%s</text>`+"\n",
			x, colors[i%len(colors)], x+16, html.EscapeString(s.Name))
		x += 48 + 8*len(s.Name)
	}
	// The even share, for reference.
	if n > 0 && 1/float64(n) <= m {
		ex := svgLeft + int(plot/float64(n)/m)
		fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888" stroke-dasharray="4 3"/>`+"\n", ex, svgTop-4, ex, barsBottom-34)
		fmt.Fprintf(b, `<text x="%d" y="%d" fill="#555" text-anchor="middle">even %.1f%%</text>`+"\n", ex, barsBottom-20, 100/float64(n))
	}
	for i, l := range labels {
		y := svgTop + i*(band+6)
		fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", svgLeft-8, y+band/2+4, html.EscapeString(l))
		for j, s := range series {
			if i >= len(s.Shares) {
				continue
			}
			v := s.Shares[i]
			wd := int(v / m * plot)
			by := y + j*svgBarH
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`, svgLeft, by, wd, svgBarH-3, colors[j%len(colors)])
			fmt.Fprintf(b, `<text x="%d" y="%d">%.2f%%</text>`+"\n", svgLeft+wd+4, by+svgBarH-6, 100*v)
		}
	}
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", svgLeft, svgTop-4, svgLeft, barsBottom-34)

	if len(slices) > 0 {
		top := barsBottom + 30
		fmt.Fprintf(b, `<text x="12" y="%d" font-size="14" font-weight="bold">writes per time slice (rows) and region (columns); darker is busier</text>`+"\n", top-8)
		cols := len(slices[0].Regions)
		cw := plot / float64(max(cols, 1))
		for i, sl := range slices {
			y := top + i*cellH
			label := sl.From.Format("2006-01-02 15:04")
			if ordinal {
				label = "write " + strconv.FormatInt(sl.From.UnixMilli(), 10)
			}
			fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", svgLeft-8, y+cellH-4, label)
			for j, v := range sl.Regions {
				// Opacity by the share of the slice's writes, so that one
				// region taking everything is black and an even spread is
				// light.
				op := 0.0
				if sl.Rows > 0 {
					op = float64(v) / float64(sl.Rows)
				}
				fill := `fill="#f2f2f2"`
				if v > 0 {
					fill = fmt.Sprintf(`fill="#c8281e" fill-opacity="%.3f"`, 0.08+0.92*op)
				}
				fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" %s stroke="white"/>`, float64(svgLeft)+float64(j)*cw, y, cw, cellH, fill)
			}
			fmt.Fprintf(b, `<text x="%d" y="%d" fill="#555">hot %d: %.0f%%</text>`+"\n", svgLeft+int(plot)+4, y+cellH-4, sl.Hot, 100*sl.HotShare)
		}
		bottom := top + len(slices)*cellH
		for j := 0; j < cols; j += max(1, cols/20) {
			fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%d</text>`, float64(svgLeft)+(float64(j)+0.5)*cw, bottom+14, j)
		}
		fmt.Fprintln(b)
	}
	fmt.Fprintln(b, `</svg>`)
	return b.Flush()
}

// RegionLabels returns a label per region: its index and start key.
func RegionLabels(rs []Region) []string {
	out := make([]string, len(rs))
	for i, g := range rs {
		out[i] = chartLabel(g.Index, g.Start)
	}
	return out
}

// chartLabel is a region's label in a chart: its index and start key.
func chartLabel(index int, start Key) string {
	if len(start) == 0 {
		return strconv.Itoa(index) + "  (table start)"
	}
	return strconv.Itoa(index) + "  " + shortKey(start, 16)
}

// Shares returns the share of each region.
func Shares(rs []Region) []float64 {
	out := make([]float64, len(rs))
	for i, g := range rs {
		out[i] = g.Share
	}
	return out
}

// WriteSVG writes the report's rows per region as an SVG bar chart and,
// when the report has time slices, a heat map of the writes per slice and
// region below it.
func (r *Report) WriteSVG(w io.Writer) error {
	kind := "simulated"
	if r.Measured {
		kind = "measured"
	}
	title := fmt.Sprintf("%s: share of rows per region (%s, %d rows, max/mean %.2f)", r.Table, kind, r.Rows, r.Skew.MaxOverMean)
	series := []Series{{Name: kind + " rows", Shares: Shares(r.Regions)}}
	// HBase's own write and read request counts, when measured.
	for _, req := range []struct {
		name string
		get  func(Region) int64
	}{
		{"write requests", func(g Region) int64 { return g.WriteRequests }},
		{"read requests", func(g Region) int64 { return g.ReadRequests }},
	} {
		var total int64
		for _, g := range r.Regions {
			total += req.get(g)
		}
		if total == 0 {
			continue
		}
		shares := make([]float64, len(r.Regions))
		for i, g := range r.Regions {
			shares[i] = float64(req.get(g)) / float64(total)
		}
		series = append(series, Series{Name: req.name, Shares: shares})
	}
	return writeSVG(w, title, RegionLabels(r.Regions), series, r.Slices, r.Ordinal)
}

// WriteFinalSVG writes a bar chart of the regions at the end of the split
// emulation (Report.Final); it writes an empty chart when no region split.
func (r *Report) WriteFinalSVG(w io.Writer) error {
	title := fmt.Sprintf("%s: share of rows per region after %d emulated splits", r.Table, len(r.Splits))
	return writeSVG(w, title, RegionLabels(r.Final), []Series{{Name: "rows", Shares: Shares(r.Final)}}, nil, false)
}

// WriteHTML writes an HTML page with the SVG chart of each report and the
// text report below it.
func WriteHTML(w io.Writer, title string, charts []func(io.Writer) error, texts []func(io.Writer) error) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n", html.EscapeString(title))
	fmt.Fprintln(b, `<style>body{font-family:sans-serif;margin:2em} pre{font-size:12px;line-height:1.25}</style></head><body>`)
	fmt.Fprintf(b, "<h1>%s</h1>\n", html.EscapeString(title))
	for _, c := range charts {
		if err := c(b); err != nil {
			return err
		}
	}
	for _, t := range texts {
		var sb strings.Builder
		if err := t(&sb); err != nil {
			return err
		}
		fmt.Fprintf(b, "<pre>%s</pre>\n", html.EscapeString(sb.String()))
	}
	fmt.Fprintln(b, "</body></html>")
	return b.Flush()
}
