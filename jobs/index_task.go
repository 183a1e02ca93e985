package jobs

import (
	"context"
	"errors"
)

// newIndexTask: the verify, repair, rebuild and build jobs. (lane g2)
func newIndexTask(ctx context.Context, c Client, spec Spec) (Task, error) {
	return nil, errors.New("jobs: index tasks: not yet")
}
