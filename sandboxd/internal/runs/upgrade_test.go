package runs

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWantsRunUpgrade(t *testing.T) {
	cases := []struct {
		name          string
		upgrade       string
		contentLength int64 // -1: chunked, no length
		want          bool
	}{
		{"svc-run with a small body", "svc-run", 100, true},
		{"any case", "SVC-Run", 100, true},
		{"the largest body", "svc-run", maxUpgradedBody, true},
		{"one byte more", "svc-run", maxUpgradedBody + 1, false},
		{"no length (chunked)", "svc-run", -1, false},
		{"another protocol", "websocket", 100, false},
		{"no upgrade asked", "", 100, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/runs", strings.NewReader(""))
			r.ContentLength = c.contentLength
			if c.upgrade != "" {
				r.Header.Set("Upgrade", c.upgrade)
			}
			if got := wantsRunUpgrade(r); got != c.want {
				t.Fatalf("wantsRunUpgrade = %v, want %v", got, c.want)
			}
		})
	}
}
