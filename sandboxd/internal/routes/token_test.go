package routes

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svc-dev/svc/sandboxd/internal/auth"
	"github.com/svc-dev/svc/sandboxd/internal/runs"
)

// PUT /token: only the current token may replace it; afterwards only the new one works.
func TestPutToken(t *testing.T) {
	gate := auth.NewGate("old-token-0123456789")
	srv := &Server{Authorized: gate.Authorized, Tokens: gate, Runs: &runs.Server{Runs: runs.NewRegistry(0, 1, nil, nil)}}
	do := func(method, path, token, body string) int {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.RequestURI = path
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code
	}
	const next = `{"token":"new-token-0123456789"}` + "\n"
	cases := []struct {
		name, token, body string
		want              int
	}{
		{"no token", "", next, http.StatusUnauthorized},
		{"a wrong token", "wrong-token-0123456789", next, http.StatusUnauthorized},
		{"not JSON", "old-token-0123456789", "x\n", http.StatusBadRequest},
		{"too short", "old-token-0123456789", `{"token":"short"}` + "\n", http.StatusBadRequest},
		{"the current token", "old-token-0123456789", next, http.StatusOK},
		{"the old token again", "old-token-0123456789", next, http.StatusUnauthorized},
	}
	for _, c := range cases {
		if got := do(http.MethodPut, "/token", c.token, c.body); got != c.want {
			t.Errorf("%s: PUT /token answered %d, want %d", c.name, got, c.want)
		}
	}
	if got := do(http.MethodGet, "/runs", "new-token-0123456789", ""); got != http.StatusOK {
		t.Errorf("GET /runs with the new token answered %d, want 200", got)
	}
	if got := do(http.MethodGet, "/runs", "old-token-0123456789", ""); got != http.StatusUnauthorized {
		t.Errorf("GET /runs with the old token answered %d, want 401", got)
	}
}
