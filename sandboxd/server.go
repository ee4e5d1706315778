package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// retryAfterSeconds is what a throttled caller is told to wait (the spec's Retry-After: 5).
const retryAfterSeconds = 5

type server struct {
	authorized func(string) bool
	workspace  string
	owner      *owner // the template's user, who owns what the API writes; nil: sandboxd's
	keepalive  time.Duration
	runs       *registry
	template   *templateProcess // nil without a template command
	logs       *logRing         // the template process's recent output
	terminals  *terminals
	tokens     *tokenGate // the token PUT /token replaces (authorized reads it)
	watch      *watched   // serves /usage and /activity; nil: neither is served

	once     sync.Once
	plain    *http.ServeMux // requests without an Upgrade header
	upgrades *http.ServeMux // requests to take the connection over
}

type errorBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

// ServeHTTP is sandboxd's whole HTTP surface: a request that asks to take the connection
// over (a run's stream, a terminal, a tunnel) is routed apart from the others, since every
// refusal of one is a bare 401 on the connection.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.once.Do(func() { s.plain, s.upgrades = s.routes(), s.upgradeRoutes() })
	mux, miss := s.plain, s.authed(s.noRoute)
	if r.Header.Get("Upgrade") != "" {
		mux, miss = s.upgrades, refuseUnauthorized
	}
	// ServeMux would redirect a path it cleans (`//runs`, `/a/../runs`); sandboxd never did.
	if p := r.URL.EscapedPath(); !strings.HasPrefix(p, "/") || cleanPath(p) != p {
		miss(w, r)
		return
	}
	mux.ServeHTTP(w, r)
}

// routes are the endpoints of requests that keep to HTTP. Every one but /healthz needs the
// bearer token; an unknown route is 404 "no route", after the token.
func (s *server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	miss := s.authed(s.noRoute)
	mux.HandleFunc("/", miss)
	on := func(pattern string, form pathForm, h http.HandlerFunc) { handle(mux, pattern, form, h, miss) }
	on("GET /healthz", asSent|bare, s.health)
	on("POST /runs", asSent|bare, s.authed(s.startRun))
	on("GET /runs", asSent, s.authed(s.listRuns))
	on("GET /runs/{id}/events", asSent|bare, s.authed(s.attachRun))
	on("POST /runs/{id}/cancel", asSent|bare, s.authed(s.cancelRun))
	on("PUT /files", asSent|bare, s.authed(s.putFiles))
	on("GET /logs", decoded, s.authed(s.serveLogs))
	on("PUT /limits", asSent|bare, s.authed(s.putLimits))
	on("/fs", asSent, s.authed(s.serveFS))
	on("/archive", asSent, s.authed(s.serveArchive))
	on("PUT /token", asSent|bare, s.authed(s.putToken))
	if s.watch != nil {
		on("GET /usage", decoded, s.authed(s.watch.serveUsage))
		on("GET /activity", decoded, s.authed(s.watch.serveActivity))
	}
	return mux
}

// upgradeRoutes are the endpoints that take the connection over, each only with its own
// Upgrade token and the bearer token; anything else is refused with a bare 401.
func (s *server) upgradeRoutes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/", refuseUnauthorized)
	on := func(pattern string, form pathForm, h http.HandlerFunc) {
		handle(mux, pattern, form, h, refuseUnauthorized)
	}
	on("POST /runs", asSent|bare, s.upgrading(runUpgrade, s.startRun))
	if s.terminals != nil {
		on("/terminal", decoded, s.upgrading("svc-terminal", s.terminals.openTerminal))
	}
	on("/tunnel/{port}", asSent|bare, s.upgrading("tcp", func(w http.ResponseWriter, r *http.Request) {
		// The port as sent: ServeMux decodes the segment (`%31` would be port 1).
		if port := tunnelPort(r.PathValue("port")); port != 0 && r.URL.EscapedPath() == "/tunnel/"+r.PathValue("port") {
			openTunnel(w, port)
		} else {
			refuseUnauthorized(w, r)
		}
	}))
	return mux
}

// pathForm is how strictly a route holds a request's path to its pattern. ServeMux lets a
// GET pattern answer HEAD, decodes each segment before it compares it (`/run%73` is `/runs`
// to it) and takes any query; sandboxd's routes always took only their own method, and most
// only the path as written (asSent), some no query at all (bare). A request that misses
// answers as a path no pattern matches.
type pathForm uint8

const (
	decoded pathForm = 0
	asSent  pathForm = 1 << iota
	bare
)

func handle(mux *http.ServeMux, pattern string, form pathForm, h, miss http.HandlerFunc) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		method, path = "", pattern
	}
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		uri, _, query := strings.Cut(r.RequestURI, "?")
		if (method != "" && r.Method != method) || (form&asSent != 0 && !sameSegments(path, uri)) || (form&bare != 0 && query) {
			miss(w, r)
			return
		}
		h(w, r)
	})
}

// sameSegments reports whether the path as sent has the pattern's literal segments, as written.
func sameSegments(pattern, sent string) bool {
	want, got := strings.Split(pattern, "/"), strings.Split(sent, "/")
	if len(want) != len(got) {
		return false
	}
	for i, w := range want {
		if !strings.HasPrefix(w, "{") && w != got[i] {
			return false
		}
	}
	return true
}

// cleanPath is the path ServeMux routes a request by (path.Clean, a trailing slash kept).
func cleanPath(p string) string {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// authed answers 401 to a request without the bearer token.
func (s *server) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r.Header.Get("Authorization")) {
			writeJSON(w, http.StatusUnauthorized, errorBody{"unauthenticated", "a valid bearer token is required"})
			return
		}
		h(w, r)
	}
}

// upgrading passes on a request that names token in its Upgrade header and carries the
// bearer token; it refuses any other with a bare 401.
func (s *server) upgrading(token string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !equalFold(r.Header.Get("Upgrade"), token) || !s.authorized(r.Header.Get("Authorization")) {
			refuseUnauthorized(w, r)
			return
		}
		h(w, r)
	}
}

func (s *server) noRoute(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusNotFound, errorBody{"not_found", "no route " + r.Method + " " + r.RequestURI})
}

// refuseUnauthorized answers a request to take the connection over that sandboxd will not
// take: a bare 401, and the connection closed.
func refuseUnauthorized(w http.ResponseWriter, _ *http.Request) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_, _ = io.WriteString(conn, "HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n")
		conn.Close()
	}
}

// listRuns is `GET /runs`, the runs in flight, or with `?all=true` (and no other query)
// every run kept, ended ones too.
func (s *server) listRuns(w http.ResponseWriter, r *http.Request) {
	switch r.URL.RawQuery {
	case "":
		if !strings.Contains(r.RequestURI, "?") {
			writeJSON(w, http.StatusOK, struct {
				Items                []runItem `json:"items"`
				MaxConcurrentInvokes int       `json:"maxConcurrentInvokes"`
			}{s.runs.list(), s.runs.capOf(kindInvoke)})
			return
		}
	case "all=true":
		writeJSON(w, http.StatusOK, struct {
			Items []runRecord `json:"items"`
		}{s.runs.records()})
		return
	}
	s.noRoute(w, r)
}

func (s *server) cancelRun(w http.ResponseWriter, r *http.Request) {
	if s.runs.cancel(r.PathValue("id")) {
		writeJSON(w, http.StatusAccepted, map[string]string{"status": "canceling"})
	} else {
		writeJSON(w, http.StatusNotFound, errorBody{"not_found", "no such run in flight"})
	}
}

// health answers anyone: ok, and how the template's process fares when there is one.
func (s *server) health(w http.ResponseWriter, _ *http.Request) {
	if s.template == nil {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Status   string         `json:"status"`
		Template templateStatus `json:"template"`
	}{"ok", s.template.status()})
}

func (s *server) startRun(w http.ResponseWriter, r *http.Request) {
	body := bufio.NewReaderSize(r.Body, 64*1024)
	line, err := readLine(body, 1024*1024)
	var stdin io.Reader = body
	if errors.Is(err, io.EOF) {
		stdin = eofReader{} // the body was the spec alone
	} else if err != nil {
		line = nil
	}
	spec, perr := parseRunSpec(line)
	if line == nil || perr != nil {
		msg := "not JSON"
		if line != nil {
			msg = perr.Error()
		}
		writeJSON(w, http.StatusBadRequest, errorBody{"bad_request", "bad run spec: " + msg})
		return
	}
	if spec.Detach {
		s.startDetached(w, spec, stdin)
		return
	}
	upgrade := wantsRunUpgrade(r)
	if upgrade {
		// The upgraded form's stdin is in the request, whole: read before the run is admitted,
		// so a client that goes away meanwhile leaves nothing behind.
		held, err := io.ReadAll(stdin)
		if err != nil {
			return
		}
		stdin = bytes.NewReader(held)
	}
	run, err := s.runs.admit(spec)
	if refuseRun(w, err) {
		return
	}
	// A client that goes away cancels its run (SIGTERM, then SIGKILL).
	finished := make(chan struct{})
	cancel := func() { s.runs.cancel(spec.RunID) }
	if upgrade {
		if conn, ok := upgradeRun(w, s.keepalive, cancel); ok {
			go func() {
				select {
				case <-conn.gone:
					cancel()
				case <-finished:
				}
			}()
			s.runs.execute(run, spec, stdin, conn.sse)
			close(finished)
			conn.close()
			return
		}
	}
	// The run reads its stdin from the body while its output streams back. Only once admitted:
	// a full-duplex response no longer drains an unread body, which keeps the connection alive.
	_ = http.NewResponseController(w).EnableFullDuplex()
	sse := newSSEWriter(w, s.keepalive, cancel)
	go func() {
		select {
		case <-r.Context().Done():
			cancel()
		case <-finished:
		}
	}()
	s.runs.execute(run, spec, &brokenReader{r: stdin, broken: cancel}, sse)
	close(finished)
}

// refuseRun answers a run admission refused (409 for an id in flight, 429 at the cap); false
// when err is nil.
func refuseRun(w http.ResponseWriter, err error) bool {
	var conflict *runConflict
	var capped *capExceeded
	switch {
	case errors.As(err, &conflict):
		writeJSON(w, http.StatusConflict, errorBody{"conflict", err.Error()})
		return true
	case errors.As(err, &capped):
		w.Header().Set("retry-after", strconv.Itoa(retryAfterSeconds))
		writeJSON(w, http.StatusTooManyRequests, struct {
			Error    string `json:"error"`
			Limit    int    `json:"limit"`
			Inflight int    `json:"inflight"`
			Message  string `json:"message"`
		}{"concurrency_exceeded", capped.limit, capped.inflight, capped.Error()})
		return true
	}
	return err != nil
}

// attachRun replays a run's stream so far (all of it, or the events after the request's
// Last-Event-ID), then follows it to its exit.
func (s *server) attachRun(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("id")
	after, ok := lastEventID(r)
	if !ok {
		writeJSON(w, http.StatusBadRequest, errorBody{"bad_request", "Last-Event-ID must be an event id: an integer ≥ 0"})
		return
	}
	l, kind := s.runs.log(runID)
	if l == nil {
		writeJSON(w, http.StatusNotFound, errorBody{"not_found", "no run " + runID + " in flight or recently finished"})
		return
	}
	w.Header().Set("x-run-kind", kind)
	sse := newSSEWriter(w, s.keepalive, nil)
	q := newQueueReader()
	detach := l.attach(q, after)
	// Unlike the POST's, this reader going away leaves the run alone.
	defer detach()
	q.pump(sse, r.Context().Done())
}

func (s *server) putFiles(w http.ResponseWriter, r *http.Request) {
	written, err := writeFiles(s.workspace, s.owner, r.Body)
	// Read what is left, so the client's request completes and it sees the answer.
	_, _ = io.Copy(io.Discard, r.Body)
	var refused *filesRefused
	var path *pathRefused
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]int{"written": written})
	case errors.As(err, &refused):
		writeJSON(w, http.StatusRequestEntityTooLarge, struct {
			Error   string   `json:"error"`
			Message string   `json:"message"`
			Codes   []string `json:"codes"`
		}{"files_refused", refused.message, refused.codes})
	case errors.As(err, &path):
		writeJSON(w, http.StatusBadRequest, errorBody{"path_refused", path.Error()})
	default:
		writeJSON(w, http.StatusInternalServerError, errorBody{"internal", err.Error()})
	}
}

func (s *server) putLimits(w http.ResponseWriter, r *http.Request) {
	line, err := readLine(bufio.NewReader(r.Body), 1024*1024)
	if err != nil && !errors.Is(err, io.EOF) {
		line = nil
	}
	var body struct {
		MaxConcurrentInvokes *float64 `json:"maxConcurrentInvokes"`
	}
	n := 0.0
	if json.Unmarshal(line, &body) == nil && body.MaxConcurrentInvokes != nil {
		n = *body.MaxConcurrentInvokes
	}
	if n < 1 || n != math.Trunc(n) || n > math.MaxInt32 {
		writeJSON(w, http.StatusBadRequest, errorBody{"bad_request", "maxConcurrentInvokes must be an integer ≥ 1"})
		return
	}
	s.runs.setCap(kindInvoke, int(n))
	writeJSON(w, http.StatusOK, map[string]int{"maxConcurrentInvokes": int(n)})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the bytes JSON.stringify gives
	_ = enc.Encode(body)
	text := strings.TrimSuffix(b.String(), "\n")
	w.Header().Set("content-type", "application/json")
	w.Header().Set("content-length", strconv.Itoa(len(text)))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, text)
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		ca, cb := a[i], b[i]
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if ca != cb {
			return false
		}
	}
	return true
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// brokenReader calls broken when reading fails other than at the end: the client has gone
// mid-body.
type brokenReader struct {
	r      io.Reader
	broken func()
}

func (b *brokenReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		b.broken()
	}
	return n, err
}
