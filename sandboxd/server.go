package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
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
}

var (
	cancelPath = regexp.MustCompile(`^/runs/([^/]+)/cancel$`)
	eventsPath = regexp.MustCompile(`^/runs/([^/]+)/events$`)
)

type errorBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

// ServeHTTP is sandboxd's whole HTTP surface. A handful of branches on purpose, not a
// router: every invoke goes through here.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	uri := r.RequestURI
	if r.Header.Get("Upgrade") != "" {
		if r.Method == http.MethodPost && uri == "/runs" && equalFold(r.Header.Get("Upgrade"), runUpgrade) && s.authorized(r.Header.Get("Authorization")) {
			s.startRun(w, r)
			return
		}
		if s.terminals != nil && r.URL.Path == "/terminal" && equalFold(r.Header.Get("Upgrade"), "svc-terminal") && s.authorized(r.Header.Get("Authorization")) {
			s.terminals.openTerminal(w, r)
			return
		}
		port := tunnelPort(uri)
		if !s.authorized(r.Header.Get("Authorization")) || port == 0 || !equalFold(r.Header.Get("Upgrade"), "tcp") {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_, _ = io.WriteString(conn, "HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n")
				conn.Close()
			}
			return
		}
		openTunnel(w, port)
		return
	}
	if r.Method == http.MethodGet && uri == "/healthz" {
		s.health(w)
		return
	}
	if !s.authorized(r.Header.Get("Authorization")) {
		writeJSON(w, http.StatusUnauthorized, errorBody{"unauthenticated", "a valid bearer token is required"})
		return
	}
	switch {
	case r.Method == http.MethodPost && uri == "/runs":
		s.startRun(w, r)
	case r.Method == http.MethodGet && eventsPath.MatchString(uri):
		s.attachRun(w, r, decodeSegment(eventsPath.FindStringSubmatch(uri)[1]))
	case r.Method == http.MethodPost && cancelPath.MatchString(uri):
		if s.runs.cancel(decodeSegment(cancelPath.FindStringSubmatch(uri)[1])) {
			writeJSON(w, http.StatusAccepted, map[string]string{"status": "canceling"})
		} else {
			writeJSON(w, http.StatusNotFound, errorBody{"not_found", "no such run in flight"})
		}
	case r.Method == http.MethodGet && uri == "/runs?all=true":
		writeJSON(w, http.StatusOK, struct {
			Items []runRecord `json:"items"`
		}{s.runs.records()})
	case r.Method == http.MethodGet && uri == "/runs":
		writeJSON(w, http.StatusOK, struct {
			Items                []runItem `json:"items"`
			MaxConcurrentInvokes int       `json:"maxConcurrentInvokes"`
		}{s.runs.list(), s.runs.capOf(kindInvoke)})
	case r.Method == http.MethodPut && uri == "/files":
		s.putFiles(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/logs":
		s.serveLogs(w, r)
	case r.Method == http.MethodPut && uri == "/limits":
		s.putLimits(w, r)
	case uri == "/fs" || strings.HasPrefix(uri, "/fs?"):
		s.serveFS(w, r)
	case uri == "/archive" || strings.HasPrefix(uri, "/archive?"):
		s.serveArchive(w, r)
	case r.Method == http.MethodPut && uri == "/token":
		s.putToken(w, r)
	default:
		writeJSON(w, http.StatusNotFound, errorBody{"not_found", "no route " + r.Method + " " + uri})
	}
}

// health answers anyone: ok, and how the template's process fares when there is one.
func (s *server) health(w http.ResponseWriter) {
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
func (s *server) attachRun(w http.ResponseWriter, r *http.Request, runID string) {
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

// decodeSegment is a path segment decoded; a malformed escape names no run.
func decodeSegment(seg string) string {
	if d, err := url.PathUnescape(seg); err == nil {
		return d
	}
	return seg
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
