package index

import (
	"errors"

	"github.com/hbkit/hbkit/schema"
)

func asSchemaError(err error, target **schema.Error) bool { return errors.As(err, target) }
