package hbase

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hbkit/hbkit/internal/pb"
	"github.com/hbkit/hbkit/internal/rpc"
)

const (
	// maxActionsPerMulti bounds the actions of one MultiRequest; a larger
	// group for one server is split into several requests.
	maxActionsPerMulti = 1000
	// maxMultiInFlight bounds the MultiRequests of one Batch in flight.
	maxMultiInFlight = 8
	// minCondsPerMulti: a server runs the conditional RegionActions of a
	// Multi one after the other, each with its own WAL sync, so the
	// CheckAndMutates bound for one server are spread over up to
	// maxMultiInFlight parallel Multis (whose syncs the server can group),
	// at least minCondsPerMulti to a Multi.
	minCondsPerMulti = 8
	// minSpread: a region's plain actions get a Multi of their own
	// (serverRequests) only when they are at least this many; fewer ride
	// in the Multi with the fewest actions, so a small Batch over many
	// regions (a record with several indexes) stays one request.
	minSpread = 8
)

// batchItem is one valid action of a Batch on its way to the servers.
type batchItem struct {
	idx    int
	action Action
	table  string // canonical
	row    []byte
	pa     *pb.Action // the wire action; Index is idx (nil for a CheckAndMutate)
	// wire and wireIdx are pa and its Index, in the item's own memory.
	wire    pb.Action
	wireIdx uint32
	nonced  bool
	// size is the bytes of the action's cells (WriteSize).
	size int
	// A CheckAndMutate is its own atomic RegionAction: cond and the
	// mutations as numbered actions.
	cond    *pb.Condition
	atomics []*pb.Action

	// idempotent: sending the action twice does no harm: a Get or a Put
	// always, a Delete as mutationIdempotent says, an Increment, an
	// Append or a CheckAndMutate never.
	idempotent bool
	// applied: an attempt may have reached the server; sentTo is that
	// server, for a nonced action (see elsewhereError).
	applied bool
	sentTo  string

	// State of the current round.
	reg     *region
	lastErr error
	kind    retryKind
}

// final marks the final error of an action that is not idempotent and
// may have been applied (ErrOutcomeUnknown).
func (it *batchItem) final(err error) error {
	if it.idempotent || !it.applied {
		return err
	}
	return &outcomeUnknownError{err: err}
}

// Batch runs independent actions, grouped by region server into Multi
// requests sent in parallel. A server runs the regions of one Multi one
// after the other, so when a Batch has fewer than 8 servers the regions
// of a server that each have 8 actions or more are spread over up to
// 8/servers Multis (see serverRequests). It returns one BatchResult per
// action. Only the actions that failed with a retryable error are resent,
// after the cache was corrected and a backoff, within ctx and the retry
// bounds.
//
// A CheckAndMutate is sent as its own atomic RegionAction carrying its
// condition (HBase 2.4+), in a Multi to its server with other actions;
// RegionActionResult.processed becomes BatchResult.Processed. Many
// CheckAndMutates for one server are spread over up to 8 parallel Multis
// (see condChunks), those of one row kept together in batch order.
// Like a lone CheckAndMutate, it is resent after a retryable failure; a
// resend answered "condition failed" after an earlier attempt may have
// reached the server (and its own write failed the condition) fails with
// ErrOutcomeUnknown instead of reporting Processed false.
func (c *Client) Batch(ctx context.Context, actions []Action) (_ []BatchResult, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	results := make([]BatchResult, len(actions))
	if len(actions) == 0 {
		return results, nil
	}
	table := batchTable(actions)
	ctx, cancelOp := c.operationContext(ctx)
	defer cancelOp()
	ctx, sp := c.startOp(ctx, "batch", table)
	sp.span.SetAttributes(attrBatchSize.Int(len(actions)))
	defer func() { sp.end(ctx, err) }()

	failed := make(map[int]error)
	items := c.batchItems(actions, failed)
	rt := c.newRetrier(func(reason string) { sp.retried(ctx, reason) })
	pending := items
	for len(pending) > 0 {
		pending = c.batchRound(ctx, pending, results, failed)
		if len(pending) == 0 {
			break
		}
		// Wait once for the whole round, as long as its most demanding
		// failure asks.
		worst := mostDemanding(pending)
		if werr := rt.wait(ctx, worst.lastErr, worst.kind); werr != nil {
			var te *timeoutError
			for _, it := range pending {
				if ctx.Err() != nil || errors.As(werr, &te) {
					failed[it.idx] = it.final(werr)
				} else {
					failed[it.idx] = it.final(&retriesExhaustedError{retries: rt.retries, err: convertError(it.lastErr)})
				}
			}
			break
		}
	}

	return batchOutcome(actions, results, failed)
}

// batchTable is the table of every action, or "" when they name several.
func batchTable(actions []Action) string {
	table := ActionTable(actions[0])
	for _, a := range actions[1:] {
		if ActionTable(a) != table {
			return ""
		}
	}
	return table
}

// batchItems returns the items to send for the valid actions; the error
// of each invalid one (or one too large) goes in failed by its index.
func (c *Client) batchItems(actions []Action, failed map[int]error) []*batchItem {
	items := make([]*batchItem, 0, len(actions))
	slab := make([]batchItem, len(actions))
	for i, a := range actions {
		if err := ValidateAction(a); err != nil {
			failed[i] = err
			continue
		}
		size, err := WriteSize(a, c.opts.maxCellSize)
		if err != nil {
			failed[i] = err
			continue
		}
		it, err := c.newBatchItem(&slab[i], i, a)
		if err != nil {
			failed[i] = err
			continue
		}
		it.size = size
		items = append(items, it)
	}
	return items
}

// mostDemanding is the pending item whose failure asks the longest wait
// (see waitRank); the first of those.
func mostDemanding(pending []*batchItem) *batchItem {
	worst := pending[0]
	for _, it := range pending[1:] {
		if waitRank(it.kind) > waitRank(worst.kind) {
			worst = it
		}
	}
	return worst
}

// batchOutcome is Batch's answer: results, with the failed actions'
// errors in them and in a *BatchError when any failed.
func batchOutcome(actions []Action, results []BatchResult, failed map[int]error) ([]BatchResult, error) {
	if len(failed) == 0 {
		return results, nil
	}
	be := &BatchError{}
	for i := range actions {
		if e, ok := failed[i]; ok {
			results[i] = BatchResult{Err: e}
			be.Failed = append(be.Failed, ActionError{Index: i, Action: actions[i], Err: e})
		}
	}
	return results, be
}

// waitRank orders retry kinds by how long they make the round wait.
func waitRank(k retryKind) int {
	switch k {
	case retryNow:
		return 0
	case retryMoved:
		return 1
	case retryOverloaded:
		return 3
	}
	return 2
}

// newBatchItem fills it, action i of a Batch, for a.
func (c *Client) newBatchItem(it *batchItem, i int, a Action) (*batchItem, error) {
	*it = batchItem{idx: i, action: a, wireIdx: uint32(i)}
	it.pa, it.wire.Index = &it.wire, &it.wireIdx
	switch a := a.(type) {
	case *Get:
		g, err := getToPB(a)
		if err != nil {
			return nil, err
		}
		it.table, it.row, it.pa.Get, it.idempotent = a.Table, a.Row, g, true
	case *Put:
		it.table, it.row, it.idempotent = a.Table, a.Row, true
		if raw, ok := putActionField(a, a.Row, maxPutWire); ok { // putwire.go
			it.pa.ProtoReflect().SetUnknown(raw)
		} else {
			it.pa.Mutation = putToPB(a, a.Row)
		}
	case *Delete:
		it.table, it.row, it.pa.Mutation = a.Table, a.Row, deleteToPB(a, a.Row)
		it.idempotent = mutationIdempotent(it.pa.Mutation)
	case *Increment:
		it.table, it.row, it.pa.Mutation, it.nonced = a.Table, a.Row, incrementToPB(a, c.newNonce()), true
	case *Append:
		it.table, it.row, it.pa.Mutation, it.nonced = a.Table, a.Row, appendToPB(a, c.newNonce()), true
	case *CheckAndMutate:
		atomics, err := camActions(a) // putwire.go
		if err != nil {
			return nil, err
		}
		it.table, it.row, it.pa, it.cond, it.atomics = a.Table, a.Row, nil, conditionToPB(a), atomics
	default:
		return nil, invalidf("batch", "", ErrInvalidRequest, "unsupported action %T", a)
	}
	it.table = canonicalTable(it.table)
	return it, nil
}

// weight is the number of wire actions of it.
func (it *batchItem) weight() int {
	if it.cond != nil {
		return len(it.atomics)
	}
	return 1
}

// regionGroup is the actions of one region in one MultiRequest.
type regionGroup struct {
	reg   *region
	items []*batchItem
	bytes int // the sum of the items' size
}

// multiReq is one MultiRequest to one server.
type multiReq struct {
	addr   string
	groups []*regionGroup
	n      int
	bytes  int // the sum of the items' size
}

// batchRound locates and sends every pending item once. Successes go to
// results, permanent failures to failed; it returns the items to retry,
// with lastErr and kind set.
func (c *Client) batchRound(ctx context.Context, pending []*batchItem, results []BatchResult, failed map[int]error) []*batchItem {
	servers, byServer, retry := c.locateItems(ctx, pending, failed)
	// Build the requests, the in-flight budget shared between servers.
	var reqs []*multiReq
	perServer := max(1, maxMultiInFlight/max(1, len(servers)))
	for _, addr := range servers {
		reqs = append(reqs, serverRequests(addr, byServer[addr], perServer, c.opts.writeBuffer)...)
	}
	// Send in parallel, the last request on the caller's goroutine, which
	// waits for the others anyway: a Batch bound for one server's region
	// (the common case) starts no goroutine and wakes none.
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxMultiInFlight)
	sp := spanFromContext(ctx)
	send := func(mr *multiReq) {
		defer func() { <-sem }()
		sp.setServer(mr.addr)
		sent := time.Now()
		outcomes := c.sendMulti(ctx, mr)
		mu.Lock()
		defer mu.Unlock()
		retry = append(retry, c.takeOutcomes(ctx, outcomes, sent, results, failed)...)
	}
	for i, mr := range reqs {
		sem <- struct{}{}
		if i == len(reqs)-1 {
			send(mr)
			break
		}
		wg.Go(func() { send(mr) })
	}
	wg.Wait()
	if len(retry) > 0 && ctx.Err() == nil {
		retry = c.failGoneTables(ctx, retry, failed)
	}
	return retry
}

// locateItems finds the region of each pending item and groups the items
// by region and the regions by server (servers in the order first met).
// An item whose location failed is returned to retry, or goes in failed
// when it cannot be retried; so does a sent nonced item whose region moved.
func (c *Client) locateItems(ctx context.Context, pending []*batchItem, failed map[int]error) (servers []string, byServer map[string][]*regionGroup, retry []*batchItem) {
	byServer = make(map[string][]*regionGroup)
	groupOf := make(map[*region]*regionGroup)
	for _, it := range pending {
		r, err := c.locate(ctx, it.table, it.row, false)
		if err != nil {
			it.reg, it.lastErr, it.kind = nil, err, classify(err)
			if it.kind == retryNever && !isContextError(err) {
				failed[it.idx] = opErr("batch", it.table, it.final(convertError(err)))
			} else {
				retry = append(retry, it)
			}
			continue
		}
		if it.nonced && it.sentTo != "" && r.addr != it.sentTo {
			failed[it.idx] = opErr("batch", it.table, it.final(&elsewhereError{from: it.sentTo, to: r.addr}))
			continue
		}
		it.reg = r
		g := groupOf[r]
		if g == nil {
			g = &regionGroup{reg: r}
			groupOf[r] = g
			if _, ok := byServer[r.addr]; !ok {
				servers = append(servers, r.addr)
			}
			byServer[r.addr] = append(byServer[r.addr], g)
		}
		g.items = append(g.items, it)
	}
	return servers, byServer, retry
}

// takeOutcomes records the outcomes of one Multi sent at sent: successes
// in results, permanent failures in failed; it returns the items to retry.
// The caller holds the round's lock.
func (c *Client) takeOutcomes(ctx context.Context, outcomes []outcome, sent time.Time, results []BatchResult, failed map[int]error) []*batchItem {
	var retry []*batchItem
	for _, o := range outcomes {
		if o.err == nil && o.it.cond != nil && !o.processed && o.it.applied {
			// Its own earlier attempt may be what failed the condition.
			failed[o.it.idx] = opErr("batch", o.it.table, conditionFailed(true))
			continue
		}
		if o.err == nil {
			c.regions.answered(o.it.reg, sent)
			results[o.it.idx] = BatchResult{Result: o.res, Processed: o.processed}
			continue
		}
		o.it.lastErr = o.err
		if !o.it.applied && requestSent(o.err) {
			o.it.applied, o.it.sentTo = true, o.it.reg.addr
		}
		o.it.kind = c.handleRegionError(ctx, o.it.table, o.it.reg, o.err)
		// The end of ctx mid-call is reported by Batch's wait.
		if o.it.kind == retryNever && !isContextError(o.err) {
			failed[o.it.idx] = opErr("batch", o.it.table, o.it.final(convertError(o.err)))
		} else {
			retry = append(retry, o.it)
		}
	}
	return retry
}

// failGoneTables fails the items to retry whose table is disabled or gone,
// which answers NotServingRegion forever, instead of retrying them; it
// returns the others. Each table is asked once.
func (c *Client) failGoneTables(ctx context.Context, retry []*batchItem, failed map[int]error) []*batchItem {
	checked := make(map[string]error)
	kept := retry[:0]
	for _, it := range retry {
		if it.kind == retryRelocate {
			terr, ok := checked[it.table]
			if !ok {
				terr = c.tableStateError(ctx, it.table, it.lastErr)
				checked[it.table] = terr
			}
			if terr != nil {
				failed[it.idx] = opErr("batch", it.table, it.final(terr))
				continue
			}
		}
		kept = append(kept, it)
	}
	return kept
}

// serverRequests packs the actions bound for one server into Multis. A
// server runs the RegionActions of one Multi one after the other, each
// region's with its own WAL sync, and parallel Multis on parallel
// handlers, whose syncs its WAL groups. So the plain actions of several
// regions are spread: a region's actions (cut in pieces of at most
// maxActionsPerMulti and of at most limit bytes first, but for an action
// larger than limit on its own) are kept together, the largest first; a
// piece of minSpread actions or more starts a Multi of its own while
// there are fewer than k, and otherwise joins the Multi with the fewest
// actions, unless that would pass maxActionsPerMulti or limit bytes, which
// starts another. With
// k = 1 this fills one Multi per server as long as it holds a whole
// region's piece. Then the CheckAndMutates, in chunks (see condChunks):
// the first joins the Multi with the fewest actions when it fits there,
// each of the others starts a Multi of its own.
func serverRequests(addr string, groups []*regionGroup, k, limit int) []*multiReq {
	var pieces []*regionGroup
	var conds []*batchItem
	for _, g := range groups {
		var part *regionGroup
		for _, it := range g.items {
			if it.cond != nil {
				conds = append(conds, it)
				continue
			}
			if part == nil || len(part.items) == maxActionsPerMulti || part.bytes+it.size > limit {
				part = &regionGroup{reg: g.reg}
				pieces = append(pieces, part)
			}
			part.items = append(part.items, it)
			part.bytes += it.size
		}
	}
	slices.SortStableFunc(pieces, func(a, b *regionGroup) int { return len(b.items) - len(a.items) })
	var reqs []*multiReq
	// place returns the Multi for n more actions of size bytes: a new one
	// when spread and there are fewer than k, else the one with the
	// fewest actions if they fit there, else a new one.
	place := func(n, size int, spread bool) *multiReq {
		var best *multiReq
		for _, mr := range reqs {
			if best == nil || mr.n < best.n {
				best = mr
			}
		}
		if best == nil || (spread && len(reqs) < k) || best.n+n > maxActionsPerMulti || best.bytes+size > limit {
			best = &multiReq{addr: addr}
			reqs = append(reqs, best)
		}
		return best
	}
	for _, p := range pieces {
		mr := place(len(p.items), p.bytes, len(p.items) >= minSpread)
		mr.groups = append(mr.groups, p)
		mr.n += len(p.items)
		mr.bytes += p.bytes
	}
	for i, chunk := range condChunks(conds, limit) {
		w, size := 0, 0
		for _, it := range chunk {
			w += it.weight()
			size += it.size
		}
		var mr *multiReq
		if i == 0 {
			mr = place(w, size, false)
		} else {
			mr = &multiReq{addr: addr}
			reqs = append(reqs, mr)
		}
		var part *regionGroup
		for _, it := range chunk {
			if part == nil || part.reg != it.reg {
				part = &regionGroup{reg: it.reg}
				mr.groups = append(mr.groups, part)
			}
			part.items = append(part.items, it)
		}
		mr.n += w
		mr.bytes += size
	}
	return reqs
}

// condChunks splits the CheckAndMutates bound for one server into up to
// maxMultiInFlight item lists, one per Multi, at least minCondsPerMulti
// items each (but the last), about equal, and more when they pass limit
// bytes, with all the items of one row in one chunk in their batch order,
// since the server runs the RegionActions of a Multi in order and
// parallel Multis in any order.
func condChunks(conds []*batchItem, limit int) [][]*batchItem {
	if len(conds) == 0 {
		return nil
	}
	// Runs of one row, in the order of their first item.
	var runs [][]*batchItem
	runOf := make(map[string]int)
	for _, it := range conds {
		r, ok := runOf[string(it.row)]
		if !ok {
			r = len(runs)
			runOf[string(it.row)] = r
			runs = append(runs, nil)
		}
		runs[r] = append(runs[r], it)
	}
	k := min(maxMultiInFlight, (len(conds)+minCondsPerMulti-1)/minCondsPerMulti)
	target := (len(conds) + k - 1) / k
	var chunks [][]*batchItem
	var cur []*batchItem
	size := 0
	for _, run := range runs {
		runSize := 0
		for _, it := range run {
			runSize += it.size
		}
		if len(cur) > 0 && size+runSize > limit {
			chunks, cur, size = append(chunks, cur), nil, 0
		}
		cur = append(cur, run...)
		size += runSize
		if len(cur) >= target {
			chunks, cur, size = append(chunks, cur), nil, 0
		}
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

type outcome struct {
	it        *batchItem
	res       *Result
	processed bool
	err       error
}

// wireAction is one RegionAction of a MultiRequest with the items it
// carries: a run of plain actions of one region, or one CheckAndMutate.
type wireAction struct {
	items []*batchItem
	cond  bool
}

// sendMulti sends one MultiRequest and returns one outcome per item.
// Within a region the RegionActions follow the order of the items, so
// the server, which runs them in order, applies the CheckAndMutates of
// one row (all in one Multi, see condChunks) in batch order.
func (c *Client) sendMulti(ctx context.Context, mr *multiReq) []outcome {
	req, was := c.multiRequest(mr)
	out := make([]outcome, 0, mr.n)
	failAll := func(err error) []outcome {
		for _, wa := range was {
			out = failItems(out, wa.items, err)
		}
		return out
	}
	// Backpressure from the servers' load statistics (loadstats.go).
	if err := c.loadPause(ctx, mr); err != nil {
		return failAll(err)
	}
	conds := slices.ContainsFunc(was, func(wa wireAction) bool { return wa.cond })
	resp, results, err := c.callMulti(ctx, mr.addr, req, conds)
	if err != nil {
		return failAll(err)
	}
	rars := resp.GetRegionActionResult()
	for i, wa := range was {
		if i >= len(rars) {
			out = failItems(out, wa.items, errMissingResult)
			continue
		}
		rar := rars[i]
		if wa.cond {
			processed, err := atomicOutcome(rar)
			if err != nil {
				out = failItems(out, wa.items, err)
				continue
			}
			out = append(out, outcome{it: wa.items[0], res: &Result{}, processed: processed})
			continue
		}
		if x := rar.GetException(); x != nil {
			out = failItems(out, wa.items, exceptionFromPair(x))
			continue
		}
		out = plainOutcomes(out, mr.addr, wa.items, rar.GetResultOrException(), results[i])
	}
	return out
}

// multiRequest builds the MultiRequest of mr, returning with it what each
// of its RegionActions carries.
func (c *Client) multiRequest(mr *multiReq) (*pb.MultiRequest, []wireAction) {
	req := &pb.MultiRequest{}
	var was []wireAction
	for _, g := range mr.groups {
		var plain *pb.RegionAction
		for _, it := range g.items {
			if it.cond != nil {
				plain = nil
				req.RegionAction = append(req.RegionAction, atomicRegionAction(g.reg, it.atomics, it.cond))
				was = append(was, wireAction{items: []*batchItem{it}, cond: true})
				continue
			}
			if plain == nil {
				plain = &pb.RegionAction{Region: g.reg.specifier()}
				req.RegionAction = append(req.RegionAction, plain)
				was = append(was, wireAction{})
			}
			plain.Action = append(plain.Action, it.pa)
			was[len(was)-1].items = append(was[len(was)-1].items, it)
			if it.nonced {
				req.NonceGroup = proto.Uint64(c.nonceGroup)
			}
		}
	}
	return req, was
}

// callMulti makes one Multi call to addr, one attempt, and decodes its
// results per RegionAction; conds says the request holds CheckAndMutates,
// whose answer's flags are checked too.
func (c *Client) callMulti(ctx context.Context, addr string, req *pb.MultiRequest, conds bool) (*pb.MultiResponse, [][]*Result, error) {
	actx, cancel := c.attemptContext(ctx)
	var resp pb.MultiResponse
	var block, msg []byte
	var results [][]*Result
	err := attemptError(ctx, actx, c.pool.Call(actx, addr, rpc.ClientService, "Multi", req, &resp, rpc.WithCellBlock(&block), rpc.WithMessage(&msg),
		rpc.WithCheck(func() (err error) {
			if results, err = multiResults(&resp, block); err == nil && conds {
				err = checkMultiFlags(msg)
			}
			return err
		})))
	cancel()
	if err != nil {
		return nil, nil, err
	}
	c.noteLoad(&resp)
	return &resp, results, nil
}

// failItems appends a failed outcome with err for each of items.
func failItems(out []outcome, items []*batchItem, err error) []outcome {
	for _, it := range items {
		out = append(out, outcome{it: it, err: err})
	}
	return out
}

// plainOutcomes appends the outcomes of the plain actions items of one
// RegionAction, from its answer roes and their decoded results, matched
// by the action's index; addr is the server that answered.
func plainOutcomes(out []outcome, addr string, items []*batchItem, roes []*pb.ResultOrException, results []*Result) []outcome {
	byIndex := make(map[uint32]int, len(roes))
	for j, roe := range roes {
		byIndex[roe.GetIndex()] = j
	}
	for _, it := range items {
		j, ok := byIndex[uint32(it.idx)]
		switch {
		case !ok:
			out = append(out, outcome{it: it, err: errMissingResult})
		case roes[j].GetException() != nil:
			out = append(out, outcome{it: it, err: exceptionFromPair(roes[j].GetException())})
		case results[j] != nil:
			// A Get's or Increment's cells are of its row (answercheck.go).
			err := corruptAnswer(addr, "Multi", checkResultRow(results[j], it.row))
			out = append(out, outcome{it: it, res: results[j], err: err})
		default:
			out = append(out, outcome{it: it, res: &Result{}})
		}
	}
	return out
}

// errMissingResult: the server's answer lacked an action (retryable).
var errMissingResult = &RemoteError{Class: "hbkit.MissingResult", Message: "no result for action in Multi response", retryable: true}
