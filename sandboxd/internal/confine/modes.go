package confine

import (
	"crypto/rand"
	"encoding/hex"
	"os"
)

// CopyBufferBytes is the one buffer a transfer uses: memory stays flat however large the file.
const CopyBufferBytes = 256 * 1024

// UnixMode turns the numeric st_mode permission bits into Go's FileMode bits.
func UnixMode(m int64) os.FileMode {
	mode := os.FileMode(m & 0o777)
	if m&0o4000 != 0 {
		mode |= os.ModeSetuid
	}
	if m&0o2000 != 0 {
		mode |= os.ModeSetgid
	}
	if m&0o1000 != 0 {
		mode |= os.ModeSticky
	}
	return mode
}

// UnixPerm is the numeric permission bits (with setuid, setgid, sticky) of a FileMode.
func UnixPerm(m os.FileMode) uint32 {
	out := uint32(m.Perm())
	if m&os.ModeSetuid != 0 {
		out |= 0o4000
	}
	if m&os.ModeSetgid != 0 {
		out |= 0o2000
	}
	if m&os.ModeSticky != 0 {
		out |= 0o1000
	}
	return out
}

// RandomHex is n random bytes in hex: the names of temporary files beside their target.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
