package auth

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/svc-dev/svc/sandboxd/internal/wire"
)

// tokenGate holds the bearer token sandboxd accepts and lets it be replaced while running:
// a warm-pool member is started with the pool's token and, when a sandbox claims it, is given
// that sandbox's token (PUT /token, authenticated by the current one) without a restart. From
// then on only the new token authenticates.
type Gate struct {
	check atomic.Pointer[func(string) bool]
}

func NewGate(token string) *Gate {
	g := &Gate{}
	g.Set(token)
	return g
}

func (g *Gate) Set(token string) {
	c := bearerChecker(token)
	g.check.Store(&c)
}

func (g *Gate) Authorized(authorization string) bool {
	return (*g.check.Load())(authorization)
}

// putToken replaces the token. The caller already presented the current one (ServeHTTP
// checks it before any route), so only a holder of the old token can hand out a new one.
func (g *Gate) ServeToken(w http.ResponseWriter, r *http.Request) {
	line, err := wire.ReadLine(bufio.NewReader(r.Body), 64*1024)
	if err != nil && !errors.Is(err, io.EOF) {
		line = nil
	}
	var body struct {
		Token string `json:"token"`
	}
	if json.Unmarshal(line, &body) != nil || len(body.Token) < 16 || len(body.Token) > 4096 {
		wire.WriteJSON(w, http.StatusBadRequest, wire.Error("bad_request", "token must be a string of 16 to 4096 characters"))
		return
	}
	if g == nil {
		wire.WriteJSON(w, http.StatusNotFound, wire.Error("not_found", "this sandboxd cannot change its token"))
		return
	}
	g.Set(body.Token)
	wire.WriteJSON(w, http.StatusOK, map[string]string{"status": "replaced"})
}
