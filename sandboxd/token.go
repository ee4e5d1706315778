package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
)

// tokenGate holds the bearer token sandboxd accepts and lets it be replaced while running:
// a warm-pool member is started with the pool's token and, when a sandbox claims it, is given
// that sandbox's token (PUT /token, authenticated by the current one) without a restart. From
// then on only the new token authenticates.
type tokenGate struct {
	check atomic.Pointer[func(string) bool]
}

func newTokenGate(token string) *tokenGate {
	g := &tokenGate{}
	g.set(token)
	return g
}

func (g *tokenGate) set(token string) {
	c := bearerChecker(token)
	g.check.Store(&c)
}

func (g *tokenGate) authorized(authorization string) bool {
	return (*g.check.Load())(authorization)
}

// putToken replaces the token. The caller already presented the current one (ServeHTTP
// checks it before any route), so only a holder of the old token can hand out a new one.
func (s *server) putToken(w http.ResponseWriter, r *http.Request) {
	line, err := readLine(bufio.NewReader(r.Body), 64*1024)
	if err != nil && !errors.Is(err, io.EOF) {
		line = nil
	}
	var body struct {
		Token string `json:"token"`
	}
	if json.Unmarshal(line, &body) != nil || len(body.Token) < 16 || len(body.Token) > 4096 {
		writeJSON(w, http.StatusBadRequest, errorBody{"bad_request", "token must be a string of 16 to 4096 characters"})
		return
	}
	if s.tokens == nil {
		writeJSON(w, http.StatusNotFound, errorBody{"not_found", "this sandboxd cannot change its token"})
		return
	}
	s.tokens.set(body.Token)
	writeJSON(w, http.StatusOK, map[string]string{"status": "replaced"})
}
