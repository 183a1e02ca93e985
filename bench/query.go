package bench

import (
	"context"
	"fmt"
	mrand "math/rand/v2"

	"github.com/hbkit/hbkit/dao"
	"github.com/hbkit/hbkit/seeds"
	"github.com/hbkit/hbkit/seeds/seedstore"
)

// layerAccounts is the number of accounts the layer workloads' records
// come from: record i is sent by accountOf(i).
const layerAccounts = 100

// accountOf is the account of the layer workloads' record i (see
// layers.record).
func accountOf(i int64) string { return fmt.Sprintf("acct%03d", i%layerAccounts) }

// accountDayClients returns the clients of accountDayQuery: operation i
// asks seedstore.SMSRepo.MessagesOfAccountOnDate for the messages of accountOf(i)
// on the UTC day of the layer workloads' first record, over the tables
// indexedWrite fills. Run indexedWrite first with the same WithStart (or
// on the same day); a client none of whose queries found a message fails
// with ErrNoData.
func (r *Runner) accountDayClients(ctx context.Context) (func(int, *mrand.Rand) (client, error), error) {
	n := r.layerNames()
	for _, t := range []string{n.indexed, n.index} {
		ok, err := r.admin.TableExists(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("bench: %s: %w", t, err)
		}
		if !ok {
			return nil, fmt.Errorf("%w (table %s does not exist: run indexedWrite first)", ErrNoData, t)
		}
	}
	repo, err := seedstore.NewSMS(r.data, append(r.o.modeOptions(), dao.WithTableNames(map[string]string{
		seeds.SMSTableName:      n.indexed,
		seeds.SMSIndexTableName: n.index,
	}))...)
	if err != nil {
		return nil, err
	}
	day := r.o.base()
	return func(int, *mrand.Rand) (client, error) {
		var found int
		return client{
			op: func(ctx context.Context, i int64) (bool, error) {
				msgs, err := repo.MessagesOfAccountOnDate(ctx, accountOf(i), day)
				found += len(msgs)
				return true, err
			},
			finish: func(context.Context) error {
				if found == 0 {
					return fmt.Errorf("%w (no messages on %s in %s)", ErrNoData, day.Format("2006-01-02"), n.indexed)
				}
				return nil
			},
		}, nil
	}, nil
}
