// Package routes is sandboxd's HTTP surface: one ServeMux pattern per endpoint, each served
// by the package of its concern.
package routes

import (
	"io"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/svc-dev/svc/sandboxd/internal/activity"
	"github.com/svc-dev/svc/sandboxd/internal/archive"
	"github.com/svc-dev/svc/sandboxd/internal/auth"
	"github.com/svc-dev/svc/sandboxd/internal/files"
	"github.com/svc-dev/svc/sandboxd/internal/logs"
	"github.com/svc-dev/svc/sandboxd/internal/runs"
	"github.com/svc-dev/svc/sandboxd/internal/template"
	"github.com/svc-dev/svc/sandboxd/internal/terminal"
	"github.com/svc-dev/svc/sandboxd/internal/tunnel"
	"github.com/svc-dev/svc/sandboxd/internal/wire"
)

// Server is sandboxd's HTTP surface; a nil field's endpoints are not served (or, for Logs and
// Tokens, answer as having nothing).
type Server struct {
	Authorized func(string) bool
	Files      *files.Server
	Archive    *archive.Server
	Runs       *runs.Server
	Template   *template.Process // nil without a template command
	Logs       *logs.Server
	Terminals  *terminal.Terminals
	Tokens     *auth.Gate        // the token PUT /token replaces (authorized reads it)
	Watch      *activity.Watched // serves /usage and /activity; nil: neither is served

	once     sync.Once
	plain    *http.ServeMux // requests without an Upgrade header
	upgrades *http.ServeMux // requests to take the connection over
}

// ServeHTTP is sandboxd's whole HTTP surface: a request that asks to take the connection
// over (a run's stream, a terminal, a tunnel) is routed apart from the others, since every
// refusal of one is a bare 401 on the connection.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.once.Do(func() {
		s.plain, _ = s.routes()
		s.upgrades, _ = s.upgradeRoutes()
	})
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

// routes are the endpoints of requests that keep to HTTP, and their patterns (openapi.json
// describes each). Every one but /healthz needs the bearer token; an unknown route is 404
// "no route", after the token.
func (s *Server) routes() (*http.ServeMux, []string) {
	mux := http.NewServeMux()
	miss := s.authed(s.noRoute)
	mux.HandleFunc("/", miss)
	var patterns []string
	on := func(pattern string, form pathForm, h http.HandlerFunc) {
		handle(mux, pattern, form, h, miss)
		patterns = append(patterns, pattern)
	}
	on("GET /healthz", asSent|bare, s.health)
	on("POST /runs", asSent|bare, s.authed(s.Runs.StartRun))
	on("GET /runs", asSent, s.authed(s.listRuns))
	on("GET /runs/{id}/events", asSent|bare, s.authed(s.Runs.AttachRun))
	on("POST /runs/{id}/cancel", asSent|bare, s.authed(s.Runs.CancelRun))
	on("PUT /files", asSent|bare, s.authed(s.Files.PutFiles))
	on("GET /logs", decoded, s.authed(s.Logs.ServeLogs))
	on("PUT /limits", asSent|bare, s.authed(s.Runs.PutLimits))
	on("/fs", asSent, s.authed(s.Files.ServeFS))
	on("/archive", asSent, s.authed(s.Archive.ServeArchive))
	on("PUT /token", asSent|bare, s.authed(s.Tokens.ServeToken))
	if s.Watch != nil {
		on("GET /usage", decoded, s.authed(s.Watch.ServeUsage))
		on("GET /activity", decoded, s.authed(s.Watch.ServeActivity))
	}
	return mux, patterns
}

// upgradeRoutes are the endpoints that take the connection over, each only with its own
// Upgrade token and the bearer token; anything else is refused with a bare 401.
func (s *Server) upgradeRoutes() (*http.ServeMux, []string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", refuseUnauthorized)
	var patterns []string
	on := func(pattern string, form pathForm, h http.HandlerFunc) {
		handle(mux, pattern, form, h, refuseUnauthorized)
		patterns = append(patterns, pattern)
	}
	on("POST /runs", asSent|bare, s.upgrading(runs.Upgrade, s.Runs.StartRun))
	if s.Terminals != nil {
		on("/terminal", decoded, s.upgrading("svc-terminal", s.Terminals.ServeTerminal))
	}
	on("/tunnel/{port}", asSent|bare, s.upgrading("tcp", func(w http.ResponseWriter, r *http.Request) {
		// The port as sent: ServeMux decodes the segment (`%31` would be port 1).
		if port := tunnel.Port(r.PathValue("port")); port != 0 && r.URL.EscapedPath() == "/tunnel/"+r.PathValue("port") {
			tunnel.Open(w, port)
		} else {
			refuseUnauthorized(w, r)
		}
	}))
	return mux, patterns
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
func (s *Server) authed(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.Authorized(r.Header.Get("Authorization")) {
			wire.WriteJSON(w, http.StatusUnauthorized, wire.Error("unauthenticated", "a valid bearer token is required"))
			return
		}
		h(w, r)
	}
}

// upgrading passes on a request that names token in its Upgrade header and carries the
// bearer token; it refuses any other with a bare 401.
func (s *Server) upgrading(token string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !wire.EqualFold(r.Header.Get("Upgrade"), token) || !s.Authorized(r.Header.Get("Authorization")) {
			refuseUnauthorized(w, r)
			return
		}
		h(w, r)
	}
}

func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	wire.WriteJSON(w, http.StatusNotFound, wire.Error("not_found", "no route "+r.Method+" "+r.RequestURI))
}

// refuseUnauthorized answers a request to take the connection over that sandboxd will not
// take: a bare 401, and the connection closed.
func refuseUnauthorized(w http.ResponseWriter, _ *http.Request) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_, _ = io.WriteString(conn, "HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n")
		conn.Close()
	}
}

// listRuns routes `GET /runs` by its query: none at all, or exactly `all=true`.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	switch {
	case !strings.Contains(r.RequestURI, "?"):
		s.Runs.ListRuns(w, r)
	case r.URL.RawQuery == "all=true":
		s.Runs.ListRecords(w, r)
	default:
		s.noRoute(w, r)
	}
}

// health answers anyone: ok, and how the template's process fares when there is one.
func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	if s.Template == nil {
		wire.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return
	}
	wire.WriteJSON(w, http.StatusOK, struct {
		Status   string          `json:"status"`
		Template template.Status `json:"template"`
	}{"ok", s.Template.Status()})
}
