package replay

import (
	"errors"
	"fmt"
)

// Unsupported is a recovery innoscope cannot replay although the server can (an encrypted
// tablespace the log changes, a DDL rollback it does not model): a limit of the tool, never a
// prediction that the server refuses.
type Unsupported struct{ error }

func (e Unsupported) Unwrap() error { return e.error }

// unsupported makes an Unsupported error from a format and its arguments.
func unsupported(format string, args ...any) error {
	return Unsupported{fmt.Errorf(format, args...)}
}

// IsUnsupported tells whether err says innoscope cannot replay the recovery (Unsupported).
func IsUnsupported(err error) bool {
	var u Unsupported
	var r *RollbackRefusal
	return errors.As(err, &u) || errors.As(err, &r)
}
