package auth

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/nats-io/nkeys"
)

// OperatorKeyFile is the file, in the embedded default's data directory,
// that holds the local operator's nkey seed.
const OperatorKeyFile = "operator.nk"

// LocalOperator returns the embedded default's operator key, kept in dir:
// it makes the key on first use and keeps it readable by its owner only.
// guard-consumer's own subcommands (output) connect with it.
func LocalOperator(dir string) (nkeys.KeyPair, error) {
	path := filepath.Join(dir, OperatorKeyFile)
	kp, err := readSeed(path)
	if err == nil {
		return kp, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("auth: %s: %w (delete it to make a new operator key)", path, err)
	}
	if kp, err = nkeys.CreateUser(); err != nil {
		return nil, err
	}
	seed, _ := kp.Seed()
	if err := writeSecret(path, seed); err != nil {
		return nil, err
	}
	return kp, nil
}

// writeSecret writes b to path, readable by the owner only, creating the
// directory (owner only) if needed. It does not replace an existing file.
func writeSecret(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("auth: writing %s: %w", path, err)
	}
	return f.Close()
}
