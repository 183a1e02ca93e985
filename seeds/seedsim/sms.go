package seedsim

import (
	"iter"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/hbkit/hbkit/keys"
	"github.com/hbkit/hbkit/schema"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/sim"
)

// NaiveSMSTableName is the name of the timestamp-first SMS table.
const NaiveSMSTableName = "sms_naive"

// mobilePrefixes are the three-digit number segments of China's mobile
// operators (China Mobile, China Unicom, China Telecom, virtual operators),
// 1[3-9]x, written one after the other.
const mobilePrefixes = "130131132133134135136137138139" +
	"145147149" +
	"150151152153155156157158159" +
	"162165166167" +
	"170171172173175176177178" +
	"180181182183184185186187188189" +
	"190191192193195196197198199"

// smsTemplates returns the message texts; the generator fills in a code.
func smsTemplates() []string {
	return []string{
		"【hbkit】您的验证码是%s,5分钟内有效,请勿泄露。",
		"【hbkit】您的订单%s已发货,请注意查收。",
		"【hbkit】您尾号%s的账户已登录,如非本人操作请致电客服。",
		"【hbkit】尊敬的用户,您的取件码为%s。",
		"【hbkit】您本月账单已出,账单编号%s。",
		"[hbkit] Your verification code is %s.",
	}
}

// SMSWorkload generates the SMS store's messages (seed 000): Records
// messages sent to Entities mobiles (realistic Chinese numbers,
// 1[3-9]x followed by 8 random digits, all distinct) from Accounts sending
// accounts, spread in time order over Days days from Start. Each message
// goes to a mobile chosen uniformly (or, with Zipf, from a heavy-tailed
// popularity over the shuffled mobiles); Seq numbers messages modulo 0x10000,
// so keys stay unique within a millisecond.
//
// It is deterministic: the same Config gives the same messages, which is
// what lets a load generator write what the simulator predicted.
type SMSWorkload struct {
	cfg      sim.Config
	mobiles  []string
	accounts []string
	contents []string
}

var _ sim.Generator[seeds.SMS] = (*SMSWorkload)(nil)

// NewSMSWorkload validates cfg and draws the mobiles, accounts and texts.
// Entities defaults to min(Records, 100,000) mobiles.
func NewSMSWorkload(cfg sim.Config) (*SMSWorkload, error) {
	c, err := cfg.WithDefaults(int(min(cfg.Records, 100_000)))
	if err != nil {
		return nil, err
	}
	if c.Entities > 50_000_000 {
		return nil, configErr("Entities", "%d mobiles is more than 50 million", c.Entities)
	}
	if c.Accounts > 1_000_000 {
		return nil, configErr("Accounts", "%d accounts is more than a million", c.Accounts)
	}
	r := sim.NewRand(c.Seed, 1)
	w := &SMSWorkload{cfg: c}
	w.mobiles = drawMobiles(r, c.Entities)
	w.accounts = make([]string, c.Accounts)
	for i := range w.accounts {
		w.accounts[i] = "acct" + strconv.Itoa(10000+i)
	}
	templates := smsTemplates()
	w.contents = make([]string, 0, 64)
	for i := 0; i < cap(w.contents); i++ {
		t := templates[i%len(templates)]
		code := strconv.Itoa(100000 + r.IntN(900000))
		w.contents = append(w.contents, sprintf1(t, code))
	}
	return w, nil
}

// drawMobiles returns n distinct mobile numbers as substrings of one
// string, in random order.
func drawMobiles(r *rand.Rand, n int) []string {
	nums := make([]uint64, 0, n)
	for len(nums) < n {
		for len(nums) < n {
			i := 3 * r.IntN(len(mobilePrefixes)/3)
			p := uint64(mobilePrefixes[i]-'0')*100 + uint64(mobilePrefixes[i+1]-'0')*10 + uint64(mobilePrefixes[i+2]-'0')
			nums = append(nums, p*100_000_000+r.Uint64N(100_000_000))
		}
		slices.Sort(nums)
		nums = slices.Compact(nums)
	}
	r.Shuffle(len(nums), func(i, j int) { nums[i], nums[j] = nums[j], nums[i] })
	buf := make([]byte, 0, n*seeds.SMSMobileWidth)
	for _, v := range nums {
		buf = strconv.AppendUint(buf, v, 10)
	}
	all := string(buf)
	out := make([]string, n)
	for i := range out {
		out[i] = all[i*seeds.SMSMobileWidth : (i+1)*seeds.SMSMobileWidth]
	}
	return out
}

// sprintf1 replaces the single %s of t with v.
func sprintf1(t, v string) string {
	for i := 0; i+1 < len(t); i++ {
		if t[i] == '%' && t[i+1] == 's' {
			return t[:i] + v + t[i+2:]
		}
	}
	return t
}

// Config returns the workload's configuration with defaults filled in.
func (w *SMSWorkload) Config() sim.Config { return w.cfg }

// Len returns the number of messages.
func (w *SMSWorkload) Len() int64 { return w.cfg.Records }

// Window returns the time window of the messages.
func (w *SMSWorkload) Window() (from, to time.Time) { return w.cfg.Window() }

// Mobiles returns the distinct mobile numbers messages go to.
func (w *SMSWorkload) Mobiles() []string { return slices.Clone(w.mobiles) }

// Records iterates over the messages in time order. The *seeds.SMS is
// reused; it allocates nothing per message.
func (w *SMSWorkload) Records() iter.Seq[*seeds.SMS] {
	return func(yield func(*seeds.SMS) bool) {
		r := sim.NewRand(w.cfg.Seed, 2)
		k := w.cfg.Clock()
		pick := w.cfg.Picker(r, len(w.mobiles))
		var m seeds.SMS
		for i := int64(0); i < w.cfg.Records; i++ {
			m.Mobile = w.mobiles[pick.Next()]
			m.SentAt = time.UnixMilli(k.At(r, i)).UTC()
			m.Seq = uint64(i) & 0xFFFF
			m.Account = w.accounts[r.IntN(len(w.accounts))]
			m.Content = w.contents[r.IntN(len(w.contents))]
			m.Delivered = r.IntN(100) < 97
			if !yield(&m) {
				return
			}
		}
	}
}

// SMSTime returns the send time of m in Unix ms, the record time of SMS
// sources.
func SMSTime(m *seeds.SMS) int64 { return m.SentAt.UnixMilli() }

// NaiveSMSTable returns the timestamp-first variant of the SMS data table,
// the design seed 003 warns against: [yyyyMMddHHmmss (14 digits)]
// [mobile (11 digits)][unique suffix (4 hex digits)], with the columns of
// seeds.SMSTable. Its keys grow with time, so all writes of a moment go
// to the one region holding "now", whatever the pre-split keys. splits
// are its split keys (see NaiveSMSSplits); none gives one region.
func NaiveSMSTable(splits [][]byte) (*schema.Table[seeds.SMS], error) {
	mobile := func(s *seeds.SMS) string { return s.Mobile }
	key, err := keys.NewLayout(
		keys.Decimal("sent", 14, func(s *seeds.SMS) uint64 { return compactTime(s.SentAt) },
			func(s *seeds.SMS, v uint64) { s.SentAt = parseCompactTime(v) }),
		keys.Digits("mobile", seeds.SMSMobileWidth, mobile, func(s *seeds.SMS, v string) { s.Mobile = v }),
		keys.Unique("unique", seeds.SMSSeqWidth,
			func(s *seeds.SMS) uint64 { return s.Seq }, func(s *seeds.SMS, v uint64) { s.Seq = v }),
	)
	if err != nil {
		return nil, err
	}
	return schema.New(schema.Spec[seeds.SMS]{
		Name: NaiveSMSTableName,
		Families: []schema.Family{{
			Name: "cf", BloomFilter: schema.BloomRow, Versions: 1, Compression: schema.CompressionSnappy,
		}},
		Key:    key,
		Splits: schema.Splits{Keys: splits},
		Columns: []schema.Column[seeds.SMS]{
			schema.StringColumn("account", "cf", "a",
				func(s *seeds.SMS) string { return s.Account }, func(s *seeds.SMS, v string) { s.Account = v }),
			schema.StringColumn("content", "cf", "c",
				func(s *seeds.SMS) string { return s.Content }, func(s *seeds.SMS, v string) { s.Content = v }),
			schema.BoolColumn("delivered", "cf", "d",
				func(s *seeds.SMS) bool { return s.Delivered }, func(s *seeds.SMS, v bool) { s.Delivered = v }),
		},
	})
}

// compactTime returns t in UTC as the number yyyyMMddHHmmss.
func compactTime(t time.Time) uint64 {
	t = t.UTC()
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return uint64(y)*1e10 + uint64(mo)*1e8 + uint64(d)*1e6 + uint64(h)*1e4 + uint64(mi)*1e2 + uint64(s)
}

// parseCompactTime is the inverse of compactTime (to the second).
func parseCompactTime(v uint64) time.Time {
	s := int(v % 100)
	v /= 100
	mi := int(v % 100)
	v /= 100
	h := int(v % 100)
	v /= 100
	d := int(v % 100)
	v /= 100
	mo := time.Month(v % 100)
	y := int(v / 100)
	return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
}

// NaiveSMSSplits returns split keys for n regions of the naive table over
// the window [from, to): the window cut into n equal spans, each boundary
// written as yyyyMMddHHmmss. It is the best a timestamp-first key can be
// pre-split, and it still sends all writes of a moment to one region.
// Boundaries that fall in the same second are merged, so fewer than n-1
// keys may come back.
func NaiveSMSSplits(from, to time.Time, n int) ([][]byte, error) {
	if n < 1 {
		return nil, configErr("regions", "need at least 1 region, have %d", n)
	}
	if !to.After(from) {
		return nil, configErr("window", "end %v is not after start %v", to, from)
	}
	span := to.Sub(from)
	var out [][]byte
	for i := 1; i < n; i++ {
		t := from.Add(time.Duration(int64(span) / int64(n) * int64(i)))
		k, err := keys.AppendDecimal(nil, compactTime(t), 14)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && string(out[len(out)-1]) >= string(k) {
			continue
		}
		out = append(out, k)
	}
	return out, nil
}
