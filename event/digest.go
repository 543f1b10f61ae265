package event

import (
	"crypto/sha256"
	"encoding/hex"
)

// Digest returns the name the object store keeps content under:
// "sha256:" and the lower-case hex SHA-256 of b.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return digestPrefix + hex.EncodeToString(sum[:])
}
