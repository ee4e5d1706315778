// Package auth is sandboxd's bearer token: checked in constant time, and replaceable while
// running (PUT /token).
package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"strings"
)

// bearerChecker compares a presented bearer token in constant time: both sides are hashed
// first, so neither the token's length nor a matching prefix shows in the timing.
func bearerChecker(token string) func(authorization string) bool {
	expected := sha256.Sum256([]byte(token))
	return func(authorization string) bool {
		presented, ok := strings.CutPrefix(authorization, "Bearer ")
		got := sha256.Sum256([]byte(presented))
		// An empty token never authenticates, whatever was configured.
		return subtle.ConstantTimeCompare(got[:], expected[:]) == 1 && ok && presented != ""
	}
}
